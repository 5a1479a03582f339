// The collection list's SQL (#27): the filters as raw fragments over the `c` alias, so the same
// conditions serve the page and its count, the page's ids (counted in the same scan for a search
// by words or tags) and the totals; and the page in full with everything its forms show, in one
// query (see pageWithRelated).
import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { listCountSql } from '../../db/list-counts.ts'
import { newestIdsCounted } from '../../db/reads.ts'
import {
  type TagSummaryJson,
  tagSummariesJson,
  type UserSummaryJson,
  userSummaryJson,
} from '../account/module.ts'
import { COLLECTION_COLUMNS, selectCollections, visibleTo } from './repo.ts'

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

/** The private collections the viewer creates, receives or is invited to (see visibleCount). */
function ownPrivateCount(viewerId: string): RawBuilder<string | number> {
  return sql<string | number>`(
    coalesce((select k.n from collection_private_counts k where k.creator_id = ${viewerId}), 0)
    + (select count(*) from collections c
      where c.is_deleted = false and c.is_private and c.receiver_id = ${viewerId}
        and c.creator_id <> ${viewerId})
    + (select count(*) from collections c
      where c.is_deleted = false and c.is_private and c.invitee_ids @> array[${viewerId}]::text[]
        and c.creator_id <> ${viewerId} and c.receiver_id is distinct from ${viewerId}))`
}

/** Every collection the viewer may see (see visibleCount). */
function visibleTotalSql(viewerId: string): RawBuilder<string | number> {
  return sql<string | number>`(${listCountSql('collections')} + ${ownPrivateCount(viewerId)})`
}

/** What pageWithRelated reads beside the rows; the SQL of the parts other modules own. */
export interface ListEmbeds {
  receivers: boolean
  /** the viewer's unfiltered total on each row */
  visibleTotal: boolean
  /** the files module's summaries of the live files among an id array expression */
  files?: ((ids: RawBuilder<unknown>) => RawBuilder<unknown>) | undefined
  /** the webhooks module's paymentWebHook URL of a collection id expression */
  hookUrl?: ((collectionId: RawBuilder<unknown>) => RawBuilder<string | null>) | undefined
}

export type ListedRow = Awaited<
  ReturnType<ReturnType<typeof selectCollections>['executeTakeFirstOrThrow']>
> & {
  matches: string | number | null
  visibleTotal: string | number | null
  creatorSummary: UserSummaryJson | null
  receiverSummary: UserSummaryJson | null
  tagSummaries: TagSummaryJson[]
  childIds: string[]
  bookmarkId: string | null
  paymentWebHook: string | null
  fileSources: unknown
}

export const collectionListRepo = {
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
        ? await collectionListRepo.countedPageQuery(ex, viewerId, f, page).execute()
        : await collectionListRepo.listPageQuery(ex, viewerId, f, page).execute()
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

  /**
   * One page of matches in full, newest first, in one query: each row with what its form shows
   * beside the collection (the creator's and, when asked, the receiver's summaries, the tags, the
   * ids of the visible children, the viewer's bookmark, the paymentWebHook of the viewer's own
   * collections, the attachments' file summaries), read by correlated subqueries on the page's
   * rows only. The other modules' parts are their SQL (account's summaries, the files' summaries,
   * the webhooks' URL), passed in or imported from them. Totals on each row: `matches` (every
   * match, counted in the page's scan) for a search by words or tags; `visibleTotal` (what the
   * viewer may see, from the kept counts) when asked, for the unfiltered list. An empty page has
   * no row to carry them.
   */
  pageWithRelated(
    ex: Executor,
    viewerId: string,
    f: ListFilters,
    page: { limit: number; offset: number },
    want: ListEmbeds,
  ): Promise<ListedRow[]> {
    const counted = f.tsQuery !== undefined || (f.tagKeys?.length ?? 0) > 0
    type PageIds = { id: string; matches: string | number | null }
    const ids = counted
      ? collectionListRepo.countedPageQuery(ex, viewerId, f, page).$castTo<PageIds>()
      : collectionListRepo
          .listPageQuery(ex, viewerId, f, page)
          .select(sql<null>`null`.as('matches'))
          .$castTo<PageIds>()
    const ref = (column: string) => sql.ref(`c.${column}`)
    const files = want.files
    const hookUrl = want.hookUrl
    /** `part` when `on`, else a null column of the same name */
    const when = <T>(on: unknown, part: () => RawBuilder<T>): RawBuilder<T | null> =>
      on ? part() : sql<null>`null`
    return ex
      .selectFrom(ids.as('p'))
      .innerJoin('collections as c', 'c.id', 'p.id')
      .select(COLLECTION_COLUMNS)
      .select([
        'p.matches',
        when(want.visibleTotal, () => visibleTotalSql(viewerId)).as('visibleTotal'),
        userSummaryJson(ref('creator_id')).as('creatorSummary'),
        when(want.receivers, () => userSummaryJson(ref('receiver_id'))).as('receiverSummary'),
        tagSummariesJson(ref('tag_ids')).as('tagSummaries'),
        sql<string[]>`(select coalesce(array_agg(ch.id::text order by ch.created_at, ch.id), '{}'::text[])
          from collections ch where ch.parent_id = c.id and ${visibleTo(viewerId, 'ch')})`.as('childIds'),
        sql<string | null>`(select b.id from bookmarks b
          where b.type = 'collection' and b.reference = c.id and b.user_id = ${viewerId})`.as('bookmarkId'),
        when(
          hookUrl,
          () => sql<string | null>`case when c.creator_id = ${viewerId} then ${hookUrl!(ref('id'))} end`,
        ).as('paymentWebHook'),
        when(
          files,
          () => sql<unknown>`case when cardinality(c.attachment_ids) + cardinality(c.delivery_attachment_ids) > 0
            then ${files!(sql`c.attachment_ids || c.delivery_attachment_ids`)} end`,
        ).as('fileSources'),
      ])
      .orderBy('c.createdAt', 'desc')
      .orderBy('c.id', 'desc')
      .$castTo<ListedRow>()
      .execute()
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
   * private ones are three disjoint parts: created (kept per creator by the database, migration
   * 0061), else received, else invited to (each counted through its own index). One condition
   * joining the three by OR is planned as a scan of every private collection once the viewer has
   * many.
   */
  async visibleCount(ex: Executor, viewerId: string): Promise<number> {
    const { rows } = await sql<{ n: string | number }>`
      select ${visibleTotalSql(viewerId)} as n`.execute(ex)
    return Number(rows[0]?.n ?? 0)
  },

  async count(ex: Executor, viewerId: string, f: ListFilters): Promise<number> {
    const row = await collectionListRepo.countQuery(ex, viewerId, f).executeTakeFirstOrThrow()
    return Number(row.n)
  },
}
