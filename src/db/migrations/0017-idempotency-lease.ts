// An Idempotency-Key claim is a lease renewed while its request runs (`created_at` is the time of
// the last renewal), fenced by a random `claim` token: a request that lost its lease can neither
// renew it nor write its late answer over the next claimant's.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table idempotency_keys add column claim text not null default ''`.execute(db)
}
