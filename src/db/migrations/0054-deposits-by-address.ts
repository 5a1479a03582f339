// The deposits recorded to one custodial address, newest first (the operator's user page and
// search): `chain_events_unreported` holds only those not reported yet, and the primary key leads
// with the chain and the transaction, so neither serves it.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create index chain_events_deposits_by_address on chain_events (address, block_number desc, log_index desc)
      where kind = 'deposit'`.execute(db)
}
