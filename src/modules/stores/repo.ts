// The only SQL of collection schemas and their store records.
import { type SqlBool, sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { countedPage, type PageRequest } from '../../db/reads.ts'

const schemaColumns = ['id', 'name', 'reference', 'description', 'fields', 'createdAt', 'updatedAt'] as const
const recordColumns = ['id', 'schemaId', 'ownerId', 'data', 'isPrivate', 'createdAt', 'updatedAt'] as const

/** What a list of records may filter on: the viewer, and field values compared as text. */
export interface RecordFilter {
  viewerId: string
  equals: Record<string, string>
}

function recordWhere(schemaId: string, f: RecordFilter) {
  const conds = [
    sql<SqlBool>`r.schema_id = ${schemaId}`,
    sql<SqlBool>`(not r.is_private or r.owner_id = ${f.viewerId})`,
    ...Object.entries(f.equals).map(([k, v]) => sql<SqlBool>`r.data->>${k} = ${v}`),
  ]
  return sql<SqlBool>`${sql.join(conds, sql` and `)}`
}

export const storeRepo = {
  async insertSchema(
    ex: Executor,
    s: { id: string; name: string; reference: string; description: string; fields: unknown; now: Date },
  ) {
    await ex
      .insertInto('collectionSchemas')
      .values({
        id: s.id,
        name: s.name,
        reference: s.reference,
        description: s.description,
        fields: JSON.stringify(s.fields),
        createdAt: s.now,
        updatedAt: s.now,
      })
      .execute()
  },

  async updateSchema(ex: Executor, id: string, set: { description?: string; fields?: unknown }, now: Date) {
    await ex
      .updateTable('collectionSchemas')
      .set({
        ...(set.description !== undefined ? { description: set.description } : {}),
        ...(set.fields !== undefined ? { fields: JSON.stringify(set.fields) } : {}),
        updatedAt: now,
      })
      .where('id', '=', id)
      .execute()
  },

  async deleteSchema(ex: Executor, id: string) {
    await ex.deleteFrom('collectionSchemas').where('id', '=', id).execute()
  },

  /** A schema by id or by reference. */
  schema(ex: Executor, idOrReference: string, forUpdate = false) {
    let q = ex
      .selectFrom('collectionSchemas')
      .select(schemaColumns)
      .where((eb) => eb.or([eb('id', '=', idOrReference), eb('reference', '=', idOrReference)]))
    if (forUpdate) q = q.forUpdate()
    return q.executeTakeFirst()
  },

  schemas(ex: Executor, f: { name?: string }, p: PageRequest) {
    let base = ex.selectFrom('collectionSchemas')
    if (f.name) base = base.where('name', 'ilike', `%${f.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
    return countedPage(base, (q) => q.select(schemaColumns), { by: ['createdAt', 'id'], first: 'newest' }, p)
  },

  async hasRecords(ex: Executor, schemaId: string) {
    const row = await ex
      .selectFrom('collectionStoreRecords')
      .select('id')
      .where('schemaId', '=', schemaId)
      .limit(1)
      .executeTakeFirst()
    return !!row
  },

  async insertRecord(
    ex: Executor,
    r: { id: string; schemaId: string; ownerId: string; data: unknown; isPrivate: boolean; now: Date },
  ) {
    await ex
      .insertInto('collectionStoreRecords')
      .values({
        id: r.id,
        schemaId: r.schemaId,
        ownerId: r.ownerId,
        data: JSON.stringify(r.data),
        isPrivate: r.isPrivate,
        createdAt: r.now,
        updatedAt: r.now,
      })
      .execute()
  },

  async updateRecord(ex: Executor, id: string, set: { data: unknown; isPrivate: boolean }, now: Date) {
    await ex
      .updateTable('collectionStoreRecords')
      .set({ data: JSON.stringify(set.data), isPrivate: set.isPrivate, updatedAt: now })
      .where('id', '=', id)
      .execute()
  },

  async deleteRecord(ex: Executor, id: string) {
    await ex.deleteFrom('collectionStoreRecords').where('id', '=', id).execute()
  },

  record(ex: Executor, schemaId: string, id: string, forUpdate = false) {
    let q = ex
      .selectFrom('collectionStoreRecords')
      .select(recordColumns)
      .where('schemaId', '=', schemaId)
      .where('id', '=', id)
    if (forUpdate) q = q.forUpdate()
    return q.executeTakeFirst()
  },

  /** Whether another record of the schema holds `value` in field `name` (as text). */
  async taken(ex: Executor, schemaId: string, name: string, value: string, exceptId: string | null) {
    let q = ex
      .selectFrom('collectionStoreRecords')
      .select('id')
      .where('schemaId', '=', schemaId)
      .where(sql<SqlBool>`data->>${name} = ${value}`)
    if (exceptId) q = q.where('id', '!=', exceptId)
    return !!(await q.limit(1).executeTakeFirst())
  },

  records(ex: Executor, schemaId: string, f: RecordFilter, p: PageRequest) {
    return countedPage(
      ex.selectFrom('collectionStoreRecords as r').where(recordWhere(schemaId, f)),
      (q) => q.select(recordColumns.map((c) => `r.${c}` as const)),
      { by: ['r.createdAt', 'r.id'], first: 'newest' },
      p,
    )
  },

  async count(ex: Executor, schemaId: string, f: RecordFilter) {
    const row = await ex
      .selectFrom('collectionStoreRecords as r')
      .select(sql<string>`count(*)`.as('n'))
      .where(recordWhere(schemaId, f))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  },
}
