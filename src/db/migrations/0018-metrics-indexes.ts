// Indexes that keep the `/metrics` readings cheap at any table size: each reading is an
// aggregate over an index (an index-only scan where it can be), never over the whole rows.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // Queue depth, running and failed jobs by kind: finished jobs (most rows) are left out.
  await sql`create index jobs_open_by_kind on jobs (kind, status, run_at) where status <> 'done'`.execute(db)
  // Outgoing transfers by state, purpose and coin, with the oldest of each.
  await sql`create index outgoing_transfers_by_status on outgoing_transfers (status, purpose, coin, created_at)`.execute(
    db,
  )
  // Counts and sums of the transaction records by type, method, fee kind, status and coin.
  await sql`
    create index transactions_totals on transactions (type, method, status, coin)
    include (is_fee, is_platform_fee, amount)`.execute(db)
}
