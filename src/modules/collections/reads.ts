// Reading collections: one with its children (#30) and the filtered list (#27), and the lookups the
// forms need beside the rows (users, tags, children, bookmarks, files, hooks), each in one query by
// id. CollectionService extends it with the changes.
import type { RawBuilder } from 'kysely'
import type { Db, Executor } from '../../db/index.ts'
import type { ReadCache } from '../../db/read-cache.ts'
import { totalOf } from '../../db/reads.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { tagService } from '../account/module.ts'
import type { EventService } from '../events/types.ts'
import type { CollectionTypeService } from './collection-types.ts'
import { listFilters } from './filters.ts'
import { type FileLookup, fullFields, type TagLookup, userSummary } from './forms.ts'
import type { ListCollectionsQueryT } from './input-schemas.ts'
import { collectionListRepo } from './list-repo.ts'
import { type CollectionHooks, hookField, hooksOf } from './payment-hooks.ts'
import { type CollectionRow, collectionRepo, type UserRow } from './repo.ts'

export interface Related {
  users: Map<string, UserRow>
  tags: TagLookup
  childIds: Map<string, string[]>
  bookmarks: Map<string, string>
  files: FileLookup
  /** paymentWebHook URLs of the viewer's own collections */
  hooks: Map<string, string>
}

export interface CollectionDeps {
  db: Db
  clock: Clock
  /** domain events: a new top-level collection is one */
  events: EventService
  /** the accepted values of `type` */
  types: Pick<CollectionTypeService, 'resolve'>
  /** file storage: attachments are the creator's own uploads, shown as file summaries */
  files?: {
    summaries(ex: Executor, ids: readonly string[]): Promise<Map<string, object>>
    /** the same summaries as SQL over an id array expression, for a read to embed */
    summariesSql(ids: RawBuilder<unknown>): RawBuilder<unknown>
    /** the summaries, by id, of what summariesSql answered (null: none) */
    summariesFrom(sources: unknown): Map<string, object>
    assertOwned(
      ex: Executor,
      userId: string,
      ids: readonly string[],
      opts?: { path?: string },
    ): Promise<unknown>
  }
  /** webhooks: a collection's paymentWebHook */
  hooks?: CollectionHooks
  /** one collection's form by id and viewer, dropped by any write to what it is read from */
  cache?: ReadCache<CollectionForm>
}

/** What one collection's form is read from: a write to any of them empties the cached forms. */
export const COLLECTION_TABLES = ['collections', 'webhook_endpoints', 'users', 'tags', 'files'] as const

export type CollectionForm = Awaited<ReturnType<CollectionReads['load']>>

export class CollectionReads {
  constructor(protected readonly deps: CollectionDeps) {}

  /**
   * What the forms need beside the collection rows, each in one query by id: the creators (and
   * receivers), the tags, the ids of the visible children and the viewer's bookmarks.
   */
  async related(
    ex: Executor,
    viewerId: string,
    rows: CollectionRow[],
    want: {
      receivers?: boolean
      bookmarks?: boolean
      knownChildren?: Map<string, string[]>
      /** the creators' summaries and the viewer's hooks, read with the rows */
      known?: { users: Map<string, UserRow>; hooks: Map<string, string> }
    } = {},
  ): Promise<Related> {
    // Children already read need no second look.
    const ids = rows.map((r) => r.id)
    const unknownChildren = ids.filter((id) => !want.knownChildren?.has(id))
    const userIds = new Set(rows.map((r) => r.creatorId))
    if (want.receivers) for (const r of rows) if (r.receiverId) userIds.add(r.receiverId)
    const fileIds = [...new Set(rows.flatMap((r) => [...r.attachmentIds, ...r.deliveryAttachmentIds]))]
    const known = want.known
    const [users, tagRows, childIds, bookmarks, files, hooks] = await Promise.all([
      known && [...userIds].every((u) => known.users.has(u))
        ? [...known.users.values()]
        : collectionRepo.users(ex, [...userIds]),
      tagService.labels(ex, [...new Set(rows.flatMap((r) => r.tagIds))]),
      collectionRepo.childIds(ex, unknownChildren, viewerId).then((m) => {
        for (const [k, v] of want.knownChildren ?? []) m.set(k, v)
        return m
      }),
      want.bookmarks ? collectionRepo.bookmarksOf(ex, viewerId, ids) : new Map<string, string>(),
      fileIds.length && this.deps.files ? this.deps.files.summaries(ex, fileIds) : new Map<string, object>(),
      known ? known.hooks : hooksOf(this.deps.hooks, ex, viewerId, rows),
    ])
    return {
      users: new Map(users.map((u) => [u.id, u])),
      tags: new Map(tagRows.map((t) => [t.id, t])),
      childIds,
      bookmarks,
      files,
      hooks,
    }
  }

  /** A collection with `collections` as the ids of its visible children. */
  withChildIds(row: CollectionRow, rel: Related) {
    return {
      ...fullFields(row, rel.tags, rel.files),
      ...hookField(rel.hooks, row.id),
      creator: userSummary(rel.users.get(row.creatorId)!),
      collections: rel.childIds.get(row.id) ?? [],
    }
  }

  /** One collection with its visible children (#30); someone else's private one is not found. */
  async get(id: string, viewerId: string, ex: Executor = this.deps.db): Promise<CollectionForm> {
    const { cache } = this.deps
    if (cache && ex === this.deps.db) return cache.get(id, () => this.load(id, viewerId, ex), viewerId)
    return this.load(id, viewerId, ex)
  }

  protected async load(id: string, viewerId: string, ex: Executor) {
    const hooks = this.deps.hooks
    // One statement: the rows with their creators and hooks (tags and files, when there are any,
    // are read by id after it).
    const [row, ...children] = await collectionRepo.getVisibleWithChildren(
      ex,
      id,
      viewerId,
      hooks && ((c) => hooks.urlSql(c)),
    )
    if (row?.id !== id) throw errors.notFound('collection')
    const rows = [row, ...children]
    const users = new Map<string, UserRow>()
    const hookUrls = new Map<string, string>()
    for (const r of rows) {
      if (r.creatorSummary) users.set(r.creatorId, r.creatorSummary as UserRow)
      if (r.paymentWebHook !== null) hookUrls.set(r.id, r.paymentWebHook)
    }
    const rel = await this.related(ex, viewerId, rows, {
      knownChildren: new Map([[id, children.map((c) => c.id)]]),
      known: { users, hooks: hookUrls },
    })
    return {
      ...fullFields(row, rel.tags, rel.files),
      ...hookField(rel.hooks, row.id),
      creator: userSummary(rel.users.get(row.creatorId)!),
      collections: children.map((c) => this.withChildIds(c, rel)),
    }
  }

  /**
   * The filtered, paginated list (#27): one query for the page with everything its forms show and,
   * for the unfiltered list or a search by words or tags, its total; a second one only to count the
   * matches of other filters when the page does not tell the total (a full page, or one past the
   * end).
   */
  async list(viewerId: string, q: ListCollectionsQueryT) {
    const page = q.page ?? 1
    const limit = q.limit ?? 12
    const filters = listFilters(q)
    const db = this.deps.db
    const withCreator = q.creator ?? true
    const withReceiver = q.receiver ?? false
    const offset = (page - 1) * limit
    // Without filters the total is kept by the database (read with the page).
    const unfiltered = Object.values(filters).every((v) => v === undefined)
    const files = this.deps.files
    const rows = await collectionListRepo.pageWithRelated(
      db,
      viewerId,
      filters,
      { limit, offset },
      {
        receivers: withReceiver,
        visibleTotal: unfiltered,
        files: files && ((ids) => files.summariesSql(ids)),
        hookUrl: this.deps.hooks && ((id) => this.deps.hooks!.urlSql(id)),
      },
    )
    const first = rows[0]
    const counted =
      first?.visibleTotal != null
        ? Number(first.visibleTotal)
        : first?.matches != null
          ? Number(first.matches)
          : await totalOf(rows.length, { page, limit }, () =>
              unfiltered
                ? collectionListRepo.visibleCount(db, viewerId)
                : collectionListRepo.count(db, viewerId, filters),
            )
    return {
      data: rows.map((r) => {
        const tags: TagLookup = new Map(r.tagSummaries.map((t) => [t.id, t]))
        const fileLookup: FileLookup = files ? files.summariesFrom(r.fileSources) : new Map()
        return {
          ...fullFields(r, tags, fileLookup),
          ...(r.paymentWebHook === null ? {} : { paymentWebHook: r.paymentWebHook }),
          creator: withCreator ? userSummary(r.creatorSummary!) : r.creatorId,
          ...(withReceiver ? { receiver: r.receiverSummary ? userSummary(r.receiverSummary) : null } : {}),
          collections: r.childIds,
          isBookmarked: r.bookmarkId !== null,
          bookmarkId: r.bookmarkId ?? '',
        }
      }),
      total: counted,
      pages: Math.ceil(counted / limit),
      page,
      limit,
    }
  }
}
