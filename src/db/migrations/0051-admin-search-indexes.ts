// Indexes for the operator's global search by a destination address: every withdrawal to an
// address (stored as the user typed it, so by its lower case) and every outgoing transfer to one
// (settled ones too; `outgoing_transfers_open` only holds those in flight), newest first.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index withdrawals_address on withdrawals (lower(address), created_at desc)`.execute(db)
  await sql`create index outgoing_transfers_to on outgoing_transfers (to_address, created_at desc)`.execute(
    db,
  )
}
