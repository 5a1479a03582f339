// Bookmarks of collections and users: one per caller and reference (adding again returns the
// existing one), listed newest first with the referenced summaries.
import type { Db } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { bookmarkRepo } from './bookmark-repo.ts'
import { userSummary } from './forms.ts'
import { collectionRepo } from './repo.ts'
import type { CollectionService } from './service.ts'

type BookmarkType = 'collection' | 'user'
type BookmarkRow = { id: string; userId: string; type: string; reference: string; createdAt: Date }

function toBookmark(row: BookmarkRow) {
  return {
    _id: row.id,
    owner: row.userId,
    type: row.type,
    reference: row.reference,
    createdAt: row.createdAt,
    updatedAt: row.createdAt,
    __v: 0,
  }
}

export class BookmarkService {
  constructor(private readonly deps: { db: Db; clock: Clock; collections: CollectionService }) {}

  /** Bookmarks a visible collection or user; idempotent per caller and reference. */
  async add(userId: string, input: { reference: string; type: BookmarkType }) {
    const db = this.deps.db
    const visible =
      input.type === 'collection'
        ? await collectionRepo.getVisible(db, input.reference, userId)
        : (await bookmarkRepo.users(db, [input.reference], userId))[0]
    if (!visible) throw errors.notFound(input.type)
    const row = await bookmarkRepo.upsert(db, {
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
    const [rows, total] = await Promise.all([
      bookmarkRepo.page(db, userId, q.type, limit, (page - 1) * limit),
      bookmarkRepo.count(db, userId, q.type),
    ])
    return {
      data: await this.#withReferences(userId, rows),
      total,
      pages: Math.ceil(total / limit),
      page,
      limit,
    }
  }

  /** One of the caller's bookmarks with its reference, as in the list; 404 for anyone else's. */
  async get(userId: string, id: string) {
    const row = await bookmarkRepo.getOwn(this.deps.db, id, userId)
    if (!row) throw errors.notFound('bookmark')
    const [item] = await this.#withReferences(userId, [row])
    return item!
  }

  /** Each bookmark with the referenced collection or user summary (null once gone or hidden). */
  async #withReferences(userId: string, rows: BookmarkRow[]) {
    const db = this.deps.db
    const collectionIds = rows.filter((r) => r.type === 'collection').map((r) => r.reference)
    const userIds = rows.filter((r) => r.type === 'user').map((r) => r.reference)
    const [collections, users] = await Promise.all([
      bookmarkRepo.collections(db, collectionIds, userId),
      bookmarkRepo.users(db, userIds, userId),
    ])
    const rel = await this.deps.collections.related(db, userId, collections)
    const collectionById = new Map(collections.map((c) => [c.id, this.deps.collections.withChildIds(c, rel)]))
    const userById = new Map(users.map((u) => [u.id, userSummary(u)]))
    return rows.map((r) => ({
      ...toBookmark(r),
      ...(r.type === 'collection'
        ? { collection: collectionById.get(r.reference) ?? null }
        : { user: userById.get(r.reference) ?? null }),
    }))
  }

  async remove(userId: string, id: string) {
    if (!(await bookmarkRepo.deleteOwn(this.deps.db, id, userId))) throw errors.notFound('bookmark')
  }
}
