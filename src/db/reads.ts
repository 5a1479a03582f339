// Read shapes the repositories share: whether a query finds a row, and one page of a list with the
// number of all the rows it matches.
import { type SelectQueryBuilder, type StringReference, sql } from 'kysely'

/** Whether `q` finds a row (only its first row is fetched). */
export async function exists<DB, TB extends keyof DB, O>(q: SelectQueryBuilder<DB, TB, O>): Promise<boolean> {
  return (await q.executeTakeFirst()) !== undefined
}

/** A page of a list: `page` from 1, `limit` rows at most. */
export interface PageRequest {
  page: number
  limit: number
}

/** How a page is ordered: by creation time, the id breaking ties, both the same way. */
export interface PageOrder<DB, TB extends keyof DB> {
  /** the creation time column and the id column, e.g. `['w.createdAt', 'w.id']` */
  by: readonly [StringReference<DB, TB>, StringReference<DB, TB>]
  /** `oldest` first (an operator's queue: what waits longest comes first) or `newest` first */
  first: 'oldest' | 'newest'
}

/**
 * One page of `filtered` and the number of all the rows it matches: `rows` are what `select` makes
 * of it (its columns), ordered by `order` and cut to the page; `total` counts `filtered` itself.
 * `count`: `always` reads the count beside the page (two queries at once); `when-needed` reads the
 * page first and counts only when the page does not tell the total (see totalOf), for lists whose
 * count is costly; `in-page` reads both in one query (`count(*) over ()`), for filtered searches
 * whose matches are found by a scan the count would only repeat (PostgreSQL computes the page's
 * other columns after the limit, for the page's rows alone).
 */
export async function countedPage<DB, TB extends keyof DB, F, O>(
  filtered: SelectQueryBuilder<DB, TB, F>,
  select: (q: SelectQueryBuilder<DB, TB, F>) => SelectQueryBuilder<DB, TB, O>,
  order: PageOrder<DB, TB>,
  p: PageRequest,
  count: 'always' | 'when-needed' | 'in-page' = 'always',
): Promise<{ total: number; rows: O[] }> {
  const direction = order.first === 'oldest' ? 'asc' : 'desc'
  const paged = <R>(q: SelectQueryBuilder<DB, TB, R>) =>
    q
      .orderBy(order.by[0], direction)
      .orderBy(order.by[1], direction)
      .limit(p.limit)
      .offset((p.page - 1) * p.limit)
  const countAll = async () => {
    const row = await filtered
      .select((eb) => eb.fn.countAll().as('total'))
      // The selection's type does not resolve over a generic table: it is this one column.
      .$castTo<{ total: number | string | bigint }>()
      .executeTakeFirstOrThrow()
    return Number(row.total)
  }
  if (count === 'in-page') {
    const withTotal = await paged(select(filtered).select(sql`count(*) over ()`.as('matchesInAll')))
      .$castTo<O & { matchesInAll: string | number }>()
      .execute()
    const rows = withTotal.map(({ matchesInAll: _, ...row }) => row as unknown as O)
    // A page past the end has no row to carry the total.
    const first = withTotal[0]
    const total = first ? Number(first.matchesInAll) : p.page === 1 ? 0 : await countAll()
    return { total, rows }
  }
  const page = paged(select(filtered))
  if (count === 'when-needed') {
    const rows = await page.execute()
    return { total: await totalOf(rows.length, p, countAll), rows }
  }
  const [total, rows] = await Promise.all([countAll(), page.execute()])
  return { total, rows }
}

/**
 * The number of all the matches of a list, given how many rows its page `p` holds: a short page
 * that is not past the end holds the tail of the matches, so only a full page (or an empty one
 * past the end) needs `count`.
 */
export async function totalOf(onPage: number, p: PageRequest, count: () => Promise<number>): Promise<number> {
  return onPage < p.limit && (onPage > 0 || p.page === 1) ? (p.page - 1) * p.limit + onPage : count()
}
