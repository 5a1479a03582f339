// The only SQL on collections, with the list's in list-repo.ts (bookmarks of deleted collections
// and the reads by id other modules need: reference-repo.ts). Reads join the creator (and, when
// asked, the receiver) and the caller's bookmark in one query.
import { type RawBuilder, type SqlBool, sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { userSummaryJson } from '../account/module.ts'

/** Columns of a collection that the API forms need (never the search columns). */
export const COLLECTION_COLUMNS = [
  'c.id',
  'c.creatorId',
  'c.receiverId',
  'c.escrowId',
  'c.attachmentIds',
  'c.escrowStatus',
  'c.escrowPaid',
  'c.isFundingRequest',
  'c.parentId',
  'c.isParentFunded',
  'c.type',
  'c.name',
  'c.category',
  'c.description',
  'c.equity',
  'c.slug',
  'c.paymentFee',
  'c.isPrivate',
  'c.deliveryDate',
  'c.tagsData',
  'c.tagIds',
  'c.tagKeys',
  'c.meta',
  'c.status',
  'c.payoutStatus',
  'c.feePayoutStatus',
  'c.platformFeePayoutStatus',
  'c.failedPayoutCount',
  'c.failedFeePayoutCount',
  'c.failedPlatformFeePayoutCount',
  'c.payoutTransactions',
  'c.inviteAccepted',
  'c.recipientCompletedJob',
  'c.score',
  'c.progress',
  'c.totalChildCollectionsCount',
  'c.totalChildCollectionEscrowCount',
  'c.inviteIds',
  'c.inviteeIds',
  'c.applicationIds',
  'c.ratingIds',
  'c.cancellationReason',
  'c.issue',
  'c.deliveryNote',
  'c.deliveryAttachmentIds',
  'c.deliveredAt',
  'c.inspectionDays',
  'c.completedAt',
  'c.cancelledAt',
  'c.escrowReleased',
  'c.isDeleted',
  'c.createdAt',
  'c.updatedAt',
  'c.version',
] as const

/** Columns of the user summary (creator, receiver, bookmarked user). */
export const USER_COLUMNS = [
  'id',
  'firstName',
  'lastName',
  'role',
  'type',
  'profile',
  'verified',
  'isPrivate',
  'score',
  'profileCompleteness',
  'socketStatus',
] as const

/**
 * Live collections the viewer may see: public ones, and private ones they create, receive (the
 * assigned talent) or hold a pending invite to.
 */
export function visibleTo(viewerId: string, alias: 'c' | 'ch' = 'c'): RawBuilder<SqlBool> {
  const a = sql.raw(alias)
  return sql<SqlBool>`${a}.is_deleted = false and (${a}.is_private = false or ${a}.creator_id = ${viewerId} or ${a}.receiver_id = ${viewerId} or ${viewerId} = any(${a}.invitee_ids))`
}

// Reads are single-table queries: the creators, bookmarks and tags of a page are fetched by id
// afterwards. Multi-way joins cost more to plan than to run on small pages.
export function selectCollections(ex: Executor) {
  return ex.selectFrom('collections as c').select(COLLECTION_COLUMNS)
}

export type CollectionRow = Awaited<ReturnType<typeof collectionRepo.getForChange>> & {}
export type UserRow = Awaited<ReturnType<typeof collectionRepo.users>>[number]

export interface NewCollection {
  id: string
  creatorId: string
  attachmentIds: string[]
  receiverId: string | null
  escrowId: string | null
  escrowStatus: 'waiting' | null
  isFundingRequest: boolean
  parentId: string | null
  isParentFunded: boolean
  type: string
  name: string
  category: string
  description: string
  slug: string
  paymentFee: string
  isPrivate: boolean
  deliveryDate: Date | null
  inspectionDays: number | null
  tagsData: string[]
  tagIds: string[]
  tagKeys: string[]
  meta: Record<string, unknown>
  searchText: string
  now: Date
}

export const collectionRepo = {
  async insert(ex: Executor, c: NewCollection) {
    const { now, meta, ...values } = c
    await ex
      .insertInto('collections')
      .values({ ...values, meta: JSON.stringify(meta), createdAt: now, updatedAt: now })
      .execute()
  },

  /** The bare row for rules (ownership, escrow state), locked when `forUpdate`. */
  getForChange(ex: Executor, id: string, forUpdate = false) {
    let q = ex.selectFrom('collections as c').select(COLLECTION_COLUMNS).where('c.id', '=', id)
    if (forUpdate) q = q.forUpdate()
    return q.executeTakeFirst()
  },

  /**
   * One collection and its visible live children in one query: the collection first (absent when
   * it is not visible), then the children oldest first.
   */
  getVisibleWithChildren(
    ex: Executor,
    id: string,
    viewerId: string,
    hookUrl?: (collectionId: RawBuilder<unknown>) => RawBuilder<string | null>,
  ) {
    // Each row with its creator's summary and, for the viewer's own, its paymentWebHook (the
    // account and webhooks modules' SQL): the form needs no lookup after it.
    return selectCollections(ex)
      .select([
        userSummaryJson(sql`c.creator_id`).as('creatorSummary'),
        (hookUrl
          ? sql<string | null>`case when c.creator_id = ${viewerId} then ${hookUrl(sql`c.id`)} end`
          : sql<string | null>`null`
        ).as('paymentWebHook'),
      ])
      .where((eb) => eb.or([eb('c.id', '=', id), eb('c.parentId', '=', id)]))
      .where(visibleTo(viewerId))
      .orderBy(sql`c.id = ${id}`, 'desc')
      .orderBy('c.createdAt', 'asc')
      .orderBy('c.id', 'asc')
      .execute()
  },

  /** Visible live children of the given parents, oldest first, with their creators. */
  children(ex: Executor, parentIds: string[], viewerId: string) {
    if (parentIds.length === 0) return Promise.resolve([])
    return selectCollections(ex)
      .where('c.parentId', 'in', parentIds)
      .where(visibleTo(viewerId))
      .orderBy('c.createdAt', 'asc')
      .orderBy('c.id', 'asc')
      .execute()
  },

  /** Ids of the visible live children of each parent. */
  async childIds(ex: Executor, parentIds: string[], viewerId: string): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>()
    if (parentIds.length === 0) return out
    const rows = await ex
      .selectFrom('collections as c')
      .select(['c.id', 'c.parentId'])
      .where('c.parentId', 'in', parentIds)
      .where(visibleTo(viewerId))
      .orderBy('c.createdAt', 'asc')
      .orderBy('c.id', 'asc')
      .execute()
    for (const r of rows) {
      const list = out.get(r.parentId!) ?? []
      list.push(r.id)
      out.set(r.parentId!, list)
    }
    return out
  },

  /** Live accounts by id, for the user summaries. */
  users(ex: Executor, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([])
    return ex.selectFrom('users').select(USER_COLUMNS).where('id', 'in', ids).execute()
  },

  /** The viewer's bookmark ids of the given collections, by collection id. */
  async bookmarksOf(ex: Executor, viewerId: string, collectionIds: string[]): Promise<Map<string, string>> {
    if (collectionIds.length === 0) return new Map()
    const rows = await ex
      .selectFrom('bookmarks')
      .select(['id', 'reference'])
      .where('userId', '=', viewerId)
      .where('type', '=', 'collection')
      .where('reference', 'in', collectionIds)
      .execute()
    return new Map(rows.map((r) => [r.reference, r.id]))
  },

  async update(
    ex: Executor,
    id: string,
    patch: Partial<
      Pick<
        NewCollection,
        | 'type'
        | 'name'
        | 'category'
        | 'description'
        | 'slug'
        | 'paymentFee'
        | 'isPrivate'
        | 'deliveryDate'
        | 'tagsData'
        | 'tagIds'
        | 'tagKeys'
        | 'searchText'
        | 'attachmentIds'
      >
    >,
    now: Date,
  ) {
    // The row as `getForChange` reads it, answered by the update itself.
    return ex
      .updateTable('collections as c')
      .set({ ...patch, updatedAt: now, version: sql`version + 1` })
      .where('c.id', '=', id)
      .returning(COLLECTION_COLUMNS)
      .executeTakeFirstOrThrow()
  },

  /** Live children of a parent, locked, for cascading a delete. */
  liveChildrenForChange(ex: Executor, parentId: string) {
    return ex
      .selectFrom('collections as c')
      .select(COLLECTION_COLUMNS)
      .where('c.parentId', '=', parentId)
      .where('c.isDeleted', '=', false)
      .forUpdate()
      .execute()
  },

  async softDelete(ex: Executor, ids: string[], now: Date) {
    if (ids.length === 0) return
    await ex
      .updateTable('collections')
      .set({ isDeleted: true, deletedAt: now, updatedAt: now, version: sql`version + 1` })
      .where('id', 'in', ids)
      .execute()
  },

  /** Moves a parent's child counters (by `children` and `escrows`, each possibly negative). */
  async bumpChildCounts(ex: Executor, parentId: string, children: number, escrows: number, now: Date) {
    if (children === 0 && escrows === 0) return
    await ex
      .updateTable('collections')
      .set({
        totalChildCollectionsCount: sql`greatest(total_child_collections_count + ${children}, 0)`,
        totalChildCollectionEscrowCount: sql`greatest(total_child_collection_escrow_count + ${escrows}, 0)`,
        updatedAt: now,
      })
      .where('id', '=', parentId)
      .execute()
  },

  async setEscrowState(
    ex: Executor,
    id: string,
    set: Partial<{
      escrowId: string | null
      receiverId: string | null
      isFundingRequest: boolean
      escrowStatus: string | null
      escrowPaid: boolean
      status: string
      completedAt: Date
    }>,
    now: Date,
  ) {
    await ex
      .updateTable('collections')
      .set({ ...set, updatedAt: now, version: sql`version + 1` })
      .where('id', '=', id)
      .execute()
  },

  async setPayout(
    ex: Executor,
    id: string,
    which: 'payout' | 'fee' | 'platformFee',
    status: string,
    failed: boolean,
    transactionId: string | undefined,
    now: Date,
  ) {
    await collectionRepo.setPayouts(ex, id, [{ which, status, failed, transactionId }], now)
  },

  /**
   * Several payout steps in one statement (in order: a later step of the same payout wins; each
   * transaction id is appended once).
   */
  async setPayouts(
    ex: Executor,
    id: string,
    steps: {
      which: 'payout' | 'fee' | 'platformFee'
      status: string
      failed: boolean
      transactionId?: string | undefined
    }[],
    now: Date,
  ) {
    if (steps.length === 0) return
    const statusCols = {
      payout: 'payoutStatus',
      fee: 'feePayoutStatus',
      platformFee: 'platformFeePayoutStatus',
    } as const
    const failedCols = {
      payout: 'failed_payout_count',
      fee: 'failed_fee_payout_count',
      platformFee: 'failed_platform_fee_payout_count',
    } as const
    const failedKeys = {
      payout: 'failedPayoutCount',
      fee: 'failedFeePayoutCount',
      platformFee: 'failedPlatformFeePayoutCount',
    } as const
    const set: Record<string, unknown> = {}
    const failures = { payout: 0, fee: 0, platformFee: 0 }
    const ids: string[] = []
    for (const step of steps) {
      set[statusCols[step.which]] = step.status
      if (step.failed) failures[step.which]++
      if (step.transactionId && !ids.includes(step.transactionId)) ids.push(step.transactionId)
    }
    const rows = ids.map((t, i) => sql`(${t}::text, ${i}::int)`)
    for (const which of ['payout', 'fee', 'platformFee'] as const)
      if (failures[which] > 0)
        set[failedKeys[which]] = sql`${sql.ref(failedCols[which])} + ${failures[which]}`
    await ex
      .updateTable('collections')
      .set({
        ...set,
        ...(ids.length
          ? {
              payoutTransactions: sql`payout_transactions || array(select u.t from (values ${sql.join(rows)}) as u(t, n) where not u.t = any(payout_transactions) order by u.n)`,
            }
          : {}),
        updatedAt: now,
        version: sql`version + 1`,
      })
      .where('id', '=', id)
      .execute()
  },
}
