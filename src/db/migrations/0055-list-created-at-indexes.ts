// The operator's lists of outgoing transfers, withdrawals, escrow legs and disputes page by creation
// time and take a creation window (`from`, `to`): each is served by an index on (created_at, id)
// instead of a scan and a sort (accounts have `users_listed` already).
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index outgoing_transfers_created on outgoing_transfers (created_at, id)`.execute(db)
  await sql`create index withdrawals_created on withdrawals (created_at, id)`.execute(db)
  await sql`create index escrow_legs_created on escrow_legs (created_at, id)`.execute(db)
  await sql`create index disputes_created on disputes (created_at, id)`.execute(db)
}
