// The only SQL on collections (bookmarks of deleted collections and the reads by id other modules
// need: reference-repo.ts). Reads join the creator (and,
// when asked, the receiver) and the caller's bookmark in one query; list filters are raw fragments
// over the `c` alias so the same conditions serve the page and its count.
import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { listCount } from '../../db/list-counts.ts'
import { newestIdsCounted } from '../../db/reads.ts'

/** Columns of a collection that the API forms need (never the search columns). */
const COLLECTION_COLUMNS = [
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

export interface ListFilters {
  type?: string
  status?: string
  creatorId?: string
  isPrivate?: boolean
  priceMin?: string
  priceMax?: string
  /** a to_tsquery text built only from word characters */
  tsQuery?: string
  tagKeys?: string[]
  metaName?: string
  escrowPaid?: boolean
  parentId?: string
}

/**
 * Live collections the viewer may see: public ones, and private ones they create, receive (the
 * assigned talent) or hold a pending invite to.
 */
export function visibleTo(viewerId: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`c.is_deleted = false and (c.is_private = false or c.creator_id = ${viewerId} or c.receiver_id = ${viewerId} or ${viewerId} = any(c.invitee_ids))`
}

function listConditions(viewerId: string, f: ListFilters): Expression<SqlBool> {
  const conds: RawBuilder<unknown>[] = [visibleTo(viewerId)]
  if (f.type !== undefined) conds.push(sql`c.type = ${f.type}`)
  if (f.status !== undefined) conds.push(sql`c.status = ${f.status}`)
  if (f.creatorId !== undefined) conds.push(sql`c.creator_id = ${f.creatorId}`)
  if (f.isPrivate !== undefined) conds.push(sql`c.is_private = ${f.isPrivate}`)
  if (f.priceMin !== undefined) conds.push(sql`c.payment_fee >= ${f.priceMin}::numeric`)
  if (f.priceMax !== undefined) conds.push(sql`c.payment_fee <= ${f.priceMax}::numeric`)
  if (f.tsQuery !== undefined) conds.push(sql`c.search_vector @@ to_tsquery('simple', ${f.tsQuery})`)
  if (f.tagKeys?.length) conds.push(sql`c.tag_keys && array[${sql.join(f.tagKeys)}]::text[]`)
  if (f.metaName !== undefined) conds.push(sql`(c.meta ->> 'name') = ${f.metaName}`)
  if (f.escrowPaid !== undefined) conds.push(sql`c.escrow_paid = ${f.escrowPaid}`)
  if (f.parentId !== undefined) conds.push(sql`c.parent_id = ${f.parentId}`)
  return sql<SqlBool>`${sql.join(conds, sql` and `)}`
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

  /** One live collection with its creator, or undefined when it is missing, deleted or hidden. */
  getVisible(ex: Executor, id: string, viewerId: string) {
    return selectCollections(ex).where('c.id', '=', id).where(visibleTo(viewerId)).executeTakeFirst()
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
  getVisibleWithChildren(ex: Executor, id: string, viewerId: string) {
    return selectCollections(ex)
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

  /** The ids of one page of matches, newest first (narrow rows: cheap to plan, sort and read). */
  listPageQuery(ex: Executor, viewerId: string, f: ListFilters, page: { limit: number; offset: number }) {
    return ex
      .selectFrom('collections as c')
      .select('c.id')
      .where(listConditions(viewerId, f))
      .orderBy('c.createdAt', 'desc')
      .orderBy('c.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
  },

  /**
   * The ids of one page of matches with the number of all matches, from one scan (see
   * newestIdsCounted): for a search by words or tags, which finds every match through the indexes.
   */
  countedPageQuery(ex: Executor, viewerId: string, f: ListFilters, page: { limit: number; offset: number }) {
    const matches = ex
      .selectFrom('collections as c')
      .select(['c.id', 'c.createdAt'])
      .where(listConditions(viewerId, f))
    return newestIdsCounted(ex, matches, page)
  },

  /**
   * One page of matches in full, newest first: the ids first, then those rows by primary key; with
   * the number of all matches when the filters search by words or tags (see countedPageQuery),
   * undefined otherwise or on a page past the end.
   */
  async listPage(ex: Executor, viewerId: string, f: ListFilters, page: { limit: number; offset: number }) {
    const found: { id: string; matches?: string | number }[] =
      f.tsQuery !== undefined || (f.tagKeys?.length ?? 0) > 0
        ? await collectionRepo.countedPageQuery(ex, viewerId, f, page).execute()
        : await collectionRepo.listPageQuery(ex, viewerId, f, page).execute()
    const matches = found[0]?.matches === undefined ? undefined : Number(found[0].matches)
    if (found.length === 0) return { rows: [], matches }
    const rows = await selectCollections(ex)
      .where(
        'c.id',
        'in',
        found.map((r) => r.id),
      )
      .execute()
    const byId = new Map(rows.map((r) => [r.id, r]))
    return { rows: found.map((r) => byId.get(r.id)).filter((r) => r !== undefined), matches }
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

  countQuery(ex: Executor, viewerId: string, f: ListFilters) {
    return ex
      .selectFrom('collections as c')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(listConditions(viewerId, f))
  },

  /**
   * Every collection the viewer may see, without filters: the public ones (kept by the database,
   * see db/list-counts.ts) and the private ones they create, receive or are invited to. The
   * private ones are counted in three disjoint parts, each read through its own index: created
   * (from `collections_visible` alone), else received, else invited to. One condition joining
   * the three by OR is planned as a scan of every private collection once the viewer has many.
   */
  async visibleCount(ex: Executor, viewerId: string): Promise<number> {
    const [everyone, own] = await Promise.all([
      listCount(ex, 'collections'),
      sql<{ n: string | number }>`
        select
          (select count(*) from collections c
            where c.is_deleted = false and c.is_private and c.creator_id = ${viewerId})
        + (select count(*) from collections c
            where c.is_deleted = false and c.is_private and c.receiver_id = ${viewerId}
              and c.creator_id <> ${viewerId})
        + (select count(*) from collections c
            where c.is_deleted = false and c.is_private and c.invitee_ids @> array[${viewerId}]::text[]
              and c.creator_id <> ${viewerId} and c.receiver_id is distinct from ${viewerId}) as n`
        .execute(ex)
        .then((r) => Number(r.rows[0]?.n ?? 0)),
    ])
    return everyone + own
  },

  async count(ex: Executor, viewerId: string, f: ListFilters): Promise<number> {
    const row = await collectionRepo.countQuery(ex, viewerId, f).executeTakeFirstOrThrow()
    return Number(row.n)
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
    await ex
      .updateTable('collections')
      .set({ ...patch, updatedAt: now, version: sql`version + 1` })
      .where('id', '=', id)
      .execute()
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
    const statusCol = (
      { payout: 'payoutStatus', fee: 'feePayoutStatus', platformFee: 'platformFeePayoutStatus' } as const
    )[which]
    const failedCol = (
      {
        payout: 'failed_payout_count',
        fee: 'failed_fee_payout_count',
        platformFee: 'failed_platform_fee_payout_count',
      } as const
    )[which]
    const failedKey = (
      {
        payout: 'failedPayoutCount',
        fee: 'failedFeePayoutCount',
        platformFee: 'failedPlatformFeePayoutCount',
      } as const
    )[which]
    await ex
      .updateTable('collections')
      .set({
        [statusCol]: status,
        ...(failed ? { [failedKey]: sql`${sql.ref(failedCol)} + 1` } : {}),
        ...(transactionId
          ? {
              payoutTransactions: sql`case when ${transactionId} = any(payout_transactions) then payout_transactions else array_append(payout_transactions, ${transactionId}::text) end`,
            }
          : {}),
        updatedAt: now,
        version: sql`version + 1`,
      })
      .where('id', '=', id)
      .execute()
  },
}
