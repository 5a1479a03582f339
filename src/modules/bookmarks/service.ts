// Bookmarks of collections, users, feed entries and invites: one per caller and reference (adding
// again returns the existing one), private to the caller, listed newest first with what each
// points to. Only what the caller may see can be bookmarked (404 otherwise, as if it did not
// exist); what stops being visible later shows as null.
import type { Db } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { CollectionReferences } from '../collections/types.ts'
import type { FeedService } from '../feeds/types.ts'
import type { InviteService } from '../work/types.ts'
import { bookmarkRepo } from './repo.ts'
import type { BookmarkType } from './schemas.ts'

type BookmarkRow = { id: string; userId: string; type: string; reference: string; createdAt: Date }

export interface BookmarkDeps {
  db: Db
  clock: Clock
  collections: CollectionReferences
  feeds: Pick<FeedService, 'visibleForms'>
  invites: Pick<InviteService, 'visibleForms'>
}

function toBookmark(row: BookmarkRow) {
  return {
    _id: row.id,
    owner: row.userId,
    type: row.type as BookmarkType,
    reference: row.reference,
    createdAt: row.createdAt,
    updatedAt: row.createdAt,
    __v: 0,
  }
}

export class BookmarkService {
  constructor(private readonly deps: BookmarkDeps) {}

  /** Bookmarks something the caller may see; idempotent per caller and reference. */
  async add(userId: string, input: { reference: string; type: BookmarkType }) {
    const visible = (await this.#targets(userId, input.type, [input.reference])).get(input.reference)
    if (!visible) throw errors.notFound(input.type === 'feed' ? 'feed' : input.type)
    const row = await bookmarkRepo.upsert(this.deps.db, {
      id: newId(),
      userId,
      type: input.type,
      reference: input.reference,
      now: this.deps.clock.now(),
    })
    return toBookmark(row)
  }

  async list(userId: string, q: { page?: number; limit?: number; type?: BookmarkType }) {
    const db = this.deps.db
    const page = q.page ?? 1
    const limit = q.limit ?? 12
    const { total, rows } = await bookmarkRepo.page(db, userId, q.type, { page, limit })
    return {
      data: await this.#withTargets(userId, rows),
      total,
      pages: Math.ceil(total / limit),
      page,
      limit,
    }
  }

  /** One of the caller's bookmarks with its target, as in the list; 404 for anyone else's. */
  async get(userId: string, id: string) {
    const row = await bookmarkRepo.getOwn(this.deps.db, id, userId)
    if (!row) throw errors.notFound('bookmark')
    const [item] = await this.#withTargets(userId, [row])
    return item!
  }

  async remove(userId: string, id: string) {
    if (!(await bookmarkRepo.deleteOwn(this.deps.db, id, userId))) throw errors.notFound('bookmark')
  }

  /** What the caller may see of the references of one type, by id (one query per type). */
  #targets(userId: string, type: BookmarkType, ids: string[]): Promise<Map<string, object>> {
    if (ids.length === 0) return Promise.resolve(new Map())
    const { db, collections, feeds, invites } = this.deps
    switch (type) {
      case 'collection':
        return collections.visibleForms(db, userId, ids)
      case 'user':
        return collections.visibleUsers(db, userId, ids)
      case 'feed':
        return feeds.visibleForms(userId, ids)
      case 'invite':
        return invites.visibleForms(userId, ids)
    }
  }

  /** Each bookmark with its target under the field of its type (null once it is not visible). */
  async #withTargets(userId: string, rows: BookmarkRow[]) {
    const types = [...new Set(rows.map((r) => r.type as BookmarkType))]
    const found = new Map(
      await Promise.all(
        types.map(
          async (type) =>
            [
              type,
              await this.#targets(
                userId,
                type,
                rows.filter((r) => r.type === type).map((r) => r.reference),
              ),
            ] as const,
        ),
      ),
    )
    return rows.map((r) => {
      const type = r.type as BookmarkType
      const target = found.get(type)?.get(r.reference) ?? null
      return {
        ...toBookmark(r),
        [type]: target,
        // The SDK reads a bookmarked collection as `data`.
        ...(type === 'collection' ? { data: target } : {}),
      }
    })
  }
}
