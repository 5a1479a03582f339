import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('fx_beta').addColumn('id', 'integer').execute()
}
