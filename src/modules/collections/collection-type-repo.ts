// The only SQL on collection types.
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { countedPage, type PageRequest } from '../../db/reads.ts'

export interface CollectionTypeFilter {
  /** include retired types (admin views) */
  all: boolean
  /** matches the start of the name or value, case-insensitive */
  search?: string
  name?: string
  value?: string
}

function filtered(ex: Executor, f: CollectionTypeFilter) {
  let q = ex.selectFrom('collectionTypes')
  if (!f.all) q = q.where('deletedAt', 'is', null)
  if (f.name !== undefined) q = q.where(sql`lower(name)`, '=', f.name.toLowerCase())
  if (f.value !== undefined) q = q.where(sql`lower(value)`, '=', f.value.toLowerCase())
  if (f.search) {
    const like = `${f.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    q = q.where((eb) => eb.or([eb(sql`lower(name)`, 'like', like), eb(sql`lower(value)`, 'like', like)]))
  }
  return q
}

export type CollectionTypeRow = Awaited<ReturnType<typeof collectionTypeRepo.get>> & {}

export const collectionTypeRepo = {
  /** One page of the types, oldest first (the seeded defaults lead), with the number of all. */
  page(ex: Executor, f: CollectionTypeFilter, p: PageRequest) {
    return countedPage(filtered(ex, f), (q) => q.selectAll(), { by: ['createdAt', 'id'], first: 'oldest' }, p)
  },

  get(ex: Executor, id: string, all = false) {
    let q = ex.selectFrom('collectionTypes').selectAll().where('id', '=', id)
    if (!all) q = q.where('deletedAt', 'is', null)
    return q.executeTakeFirst()
  },

  /** The type with this value (any case), retired or not. */
  byValue(ex: Executor, value: string) {
    return ex
      .selectFrom('collectionTypes')
      .selectAll()
      .where(sql`lower(value)`, '=', value.toLowerCase())
      .executeTakeFirst()
  },

  /** Inserts unless the value is taken (any case); undefined then. */
  insert(ex: Executor, row: { id: string; name: string; value: string; description: string; now: Date }) {
    const { now, ...values } = row
    return ex
      .insertInto('collectionTypes')
      .values({ ...values, createdAt: now, updatedAt: now })
      .onConflict((oc) => oc.expression(sql`lower(value)`).doNothing())
      .returningAll()
      .executeTakeFirst()
  },

  update(
    ex: Executor,
    id: string,
    set: { name?: string; description?: string; deletedAt?: Date | null; now: Date },
  ) {
    const { now, ...values } = set
    return ex
      .updateTable('collectionTypes')
      .set({ ...values, updatedAt: now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst()
  },
}
