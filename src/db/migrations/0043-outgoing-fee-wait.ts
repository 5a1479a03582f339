// An outgoing transfer that waits because the network asks more per gas than its coin's maximum
// (`maxFeePerGasGwei` in the coins configuration) says so on its row: since when, what the network
// asked, the maximum, and whether it waits to be signed or to have its pending transaction replaced.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table outgoing_transfers add column waiting_for_fee jsonb`.execute(db)
  await sql`
    create index outgoing_transfers_waiting_for_fee on outgoing_transfers (coin)
      where waiting_for_fee is not null`.execute(db)
}
