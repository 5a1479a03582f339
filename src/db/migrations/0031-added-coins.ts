// Coins added by operators at run time (an ERC-20 contract already on the chain): the admin who
// added it; null for coins of the configuration. Start-up no longer retires such a coin for not
// being configured.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table coins add column added_by char(24)`.execute(db)
}
