// Operators' settings of coins over their configuration: a coin activated or deactivated, and a
// static USD rate, changed at run time (every API process re-reads them on a notification).
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table coin_settings (
      reference text primary key,
      active boolean,
      usd_rate numeric check (usd_rate is null or usd_rate > 0),
      updated_by char(24),
      updated_at timestamptz not null
    )`.execute(db)
}
