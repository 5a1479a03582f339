import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('fx_alpha_late').addColumn('id', 'integer').execute()
}
