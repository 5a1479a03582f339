// What other modules show of collections and users by id, as the viewer may see them (the
// targets of bookmarks): hidden and deleted ones are left out.
import type { Executor } from '../../db/index.ts'
import { userSummary } from './forms.ts'
import { referenceRepo } from './reference-repo.ts'
import type { CollectionService } from './service.ts'

export class CollectionReferences {
  constructor(private readonly collections: Pick<CollectionService, 'related' | 'withChildIds'>) {}

  /** The collections of `ids` the viewer may see, in their list form (creator summary, child ids). */
  async visibleForms(ex: Executor, viewerId: string, ids: string[]) {
    const rows = await referenceRepo.visibleByIds(ex, [...new Set(ids)], viewerId)
    const rel = await this.collections.related(ex, viewerId, rows)
    return new Map(rows.map((r) => [r.id, this.collections.withChildIds(r, rel)]))
  }

  /** User summaries of the accounts of `ids` the viewer may see (public ones, and their own). */
  async visibleUsers(ex: Executor, viewerId: string, ids: string[]) {
    const rows = await referenceRepo.visibleUsers(ex, [...new Set(ids)], viewerId)
    return new Map(rows.map((u) => [u.id, userSummary(u)]))
  }
}
