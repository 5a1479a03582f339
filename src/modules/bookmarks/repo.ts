// The only SQL on bookmarks (besides removing those of deleted collections and accounts, which
// their modules do with the deletion): one per caller, type and reference.
import type { Executor } from '../../db/index.ts'
import { countedPage, type PageRequest } from '../../db/reads.ts'
import type { BookmarkType } from './schemas.ts'

export const bookmarkRepo = {
  /** Inserts the bookmark unless the caller has one for that reference; returns the row either way. */
  async upsert(
    ex: Executor,
    b: { id: string; userId: string; type: BookmarkType; reference: string; now: Date },
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

  /** One page of the caller's bookmarks (of one type), newest first, with the number of all. */
  page(ex: Executor, userId: string, type: BookmarkType | undefined, p: PageRequest) {
    let q = ex.selectFrom('bookmarks').where('userId', '=', userId)
    if (type) q = q.where('type', '=', type)
    return countedPage(q, (q) => q.selectAll(), { by: ['createdAt', 'id'], first: 'newest' }, p)
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
}
