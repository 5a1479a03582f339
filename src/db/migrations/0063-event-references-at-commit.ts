// The rows that name an event (notifications, webhook deliveries, feed dismissals) check it at
// commit. An event without a key is written by the statement of its first subscriber that writes
// one (src/modules/events/service.ts); a subscriber writing before it, or none at all, leaves the
// event's row to the end of the emit, and the reference holds by the time the transaction commits.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['notifications', 'webhook_deliveries', 'feed_dismissals'])
    await sql`alter table ${sql.table(table)} alter constraint ${sql.id(`${table}_event_id_fkey`)}
      deferrable initially deferred`.execute(db)
}
