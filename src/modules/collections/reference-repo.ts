// SQL for what other modules look up by id (the bookmarks' targets) and the bookmarks of deleted
// collections.
import type { Executor } from '../../db/index.ts'
import { selectCollections, USER_COLUMNS, visibleTo } from './repo.ts'

export const referenceRepo = {
  /** Visible collections by id (for other modules' lists of references). */
  visibleByIds(ex: Executor, ids: string[], viewerId: string) {
    if (ids.length === 0) return Promise.resolve([])
    return selectCollections(ex).where('c.id', 'in', ids).where(visibleTo(viewerId)).execute()
  },

  /** Live accounts by id that the viewer may see: public ones, and the viewer's own. */
  visibleUsers(ex: Executor, ids: string[], viewerId: string) {
    if (ids.length === 0) return Promise.resolve([])
    return ex
      .selectFrom('users')
      .select(USER_COLUMNS)
      .where('id', 'in', ids)
      .where('deletedAt', 'is', null)
      .where((eb) => eb.or([eb('isPrivate', '=', false), eb('id', '=', viewerId)]))
      .execute()
  },

  /** Bookmarks of deleted collections go with them. */
  async deleteBookmarksOf(ex: Executor, collectionIds: string[]) {
    if (collectionIds.length === 0) return
    await ex
      .deleteFrom('bookmarks')
      .where('type', '=', 'collection')
      .where('reference', 'in', collectionIds)
      .execute()
  },
}
