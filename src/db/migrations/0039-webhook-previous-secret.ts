// Webhook secret rotation with an overlap: the secret a rotation replaced keeps signing beside the
// new one (two signatures in `webhook-signature`, as Standard Webhooks allows) until
// `previous_secret_expires_at`, so a receiver can switch secrets without refusing a delivery.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table webhook_endpoints
      -- the replaced secret, sealed like secret_sealed (associated data: the endpoint id)
      add column previous_secret_sealed text,
      add column previous_secret_expires_at timestamptz`.execute(db)
}
