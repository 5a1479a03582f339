// The collection list's SQL (#27): the filters as raw fragments over the `c` alias, so the same
// conditions serve the page and its count, the page's ids (counted in the same scan for a search
// by words or tags) and the totals.
import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { listCount } from '../../db/list-counts.ts'
import { newestIdsCounted } from '../../db/reads.ts'
import { selectCollections, visibleTo } from './repo.ts'

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
    const row = await collectionListRepo.countQuery(ex, viewerId, f).executeTakeFirstOrThrow()
    return Number(row.n)
  },
}
