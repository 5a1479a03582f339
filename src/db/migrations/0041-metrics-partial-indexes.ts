// Indexes for the series `/metrics` reads at every scrape: the disputes not settled yet, and the
// webhook deliveries that failed for good or are being retried. Each is partial, so it stays as
// small as what it counts however many settled disputes and delivered webhooks pile up.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index disputes_unsettled on disputes (status) where status <> 'settled'`.execute(db)
  await sql`
    create index webhook_deliveries_failed on webhook_deliveries (updated_at) where status = 'failed'`.execute(
    db,
  )
  await sql`
    create index webhook_deliveries_retrying on webhook_deliveries (endpoint_id)
      where status = 'pending' and attempts > 0`.execute(db)
}
