// The inspection period of a job: the days a delivered job waits for its creator before it
// completes by itself (null: the default of 14).
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table collections add column inspection_days smallint
      check (inspection_days between 1 and 60)`.execute(db)
}
