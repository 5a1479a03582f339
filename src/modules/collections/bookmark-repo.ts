// The only SQL on bookmarks: one per caller and reference, with the referenced collections and
// user summaries read as the caller may see them.
import type { Executor } from '../../db/index.ts'
import { selectCollections, USER_COLUMNS, visibleTo } from './repo.ts'

export const bookmarkRepo = {
  /** Inserts the bookmark unless the caller has one for that reference; returns the row either way. */
  async upsert(
    ex: Executor,
    b: { id: string; userId: string; type: 'collection' | 'user'; reference: string; now: Date },
  ) {
    await ex
      .insertInto('bookmarks')
      .values({ id: b.id, userId: b.userId, type: b.type, reference: b.reference, createdAt: b.now })
      .onConflict((oc) => oc.columns(['userId', 'type', 'reference']).doNothing())
      .execute()
    return ex
      .selectFrom('bookmarks')
      .selectAll()
      .where('userId', '=', b.userId)
      .where('type', '=', b.type)
      .where('reference', '=', b.reference)
      .executeTakeFirstOrThrow()
  },

  page(ex: Executor, userId: string, type: 'collection' | 'user' | undefined, limit: number, offset: number) {
    let q = ex.selectFrom('bookmarks').selectAll().where('userId', '=', userId)
    if (type) q = q.where('type', '=', type)
    return q.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute()
  },

  async count(ex: Executor, userId: string, type: 'collection' | 'user' | undefined) {
    let q = ex
      .selectFrom('bookmarks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('userId', '=', userId)
    if (type) q = q.where('type', '=', type)
    const row = await q.executeTakeFirstOrThrow()
    return Number(row.n)
  },

  /** One bookmark of the caller; undefined for someone else's or an unknown one. */
  getOwn(ex: Executor, id: string, userId: string) {
    return ex
      .selectFrom('bookmarks')
      .selectAll()
      .where('id', '=', id)
      .where('userId', '=', userId)
      .executeTakeFirst()
  },

  async deleteOwn(ex: Executor, id: string, userId: string): Promise<boolean> {
    const res = await ex
      .deleteFrom('bookmarks')
      .where('id', '=', id)
      .where('userId', '=', userId)
      .executeTakeFirst()
    return Number(res.numDeletedRows) > 0
  },

  async deleteForReferences(ex: Executor, type: 'collection' | 'user', references: string[]) {
    if (references.length === 0) return
    await ex.deleteFrom('bookmarks').where('type', '=', type).where('reference', 'in', references).execute()
  },

  /** Visible user summaries by id (live accounts that are public, or the viewer). */
  users(ex: Executor, ids: string[], viewerId: string) {
    if (ids.length === 0) return Promise.resolve([])
    return ex
      .selectFrom('users')
      .select(USER_COLUMNS)
      .where('id', 'in', ids)
      .where('deletedAt', 'is', null)
      .where((eb) => eb.or([eb('isPrivate', '=', false), eb('id', '=', viewerId)]))
      .execute()
  },

  /** Visible collections by id, with creators. */
  collections(ex: Executor, ids: string[], viewerId: string) {
    if (ids.length === 0) return Promise.resolve([])
    return selectCollections(ex).where('c.id', 'in', ids).where(visibleTo(viewerId)).execute()
  },
}
