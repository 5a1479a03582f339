// Earlier codes of an auth flow: a code stays valid until its own expiry when a newer one is
// mailed (a resend, a new login or security code), so a mail that arrives late still works. The
// newest code stays in auth_flows.code_hash; at most two earlier ones are kept per flow.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table auth_flow_codes (
      flow_id char(24) not null references auth_flows(id),
      code_hash text not null,
      expires_at timestamptz not null,
      replaced_at timestamptz not null,
      primary key (flow_id, code_hash)
    )`.execute(db)
}
