// Read shapes the repositories share: whether a query finds a row, and one page of a list with the
// number of all the rows it matches.
import { type SelectQueryBuilder, type StringReference, sql } from 'kysely'
import type { Executor } from './index.ts'

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
 * `count`: `always` reads the count beside the page; `in-page` reads it in the page's statement
 * (a scalar subquery: one round trip; a page past the end counts apart); `when-needed` reads the
 * page first and counts only when the page does not tell the total (see totalOf), for lists whose
 * count is costly; a function is read beside the page instead of counting (a total the database
 * keeps).
 */
export async function countedPage<DB, TB extends keyof DB, F, O>(
  filtered: SelectQueryBuilder<DB, TB, F>,
  select: (q: SelectQueryBuilder<DB, TB, F>) => SelectQueryBuilder<DB, TB, O>,
  order: PageOrder<DB, TB>,
  p: PageRequest,
  count: 'always' | 'in-page' | 'when-needed' | (() => Promise<number>) = 'always',
): Promise<{ total: number; rows: O[] }> {
  const direction = order.first === 'oldest' ? 'asc' : 'desc'
  const page = select(filtered)
    .orderBy(order.by[0], direction)
    .orderBy(order.by[1], direction)
    .limit(p.limit)
    .offset((p.page - 1) * p.limit)
  const countAll = async (): Promise<number> => {
    if (typeof count === 'function') return count()
    const row = await filtered
      .select((eb) => eb.fn.countAll().as('total'))
      // The selection's type does not resolve over a generic table: it is this one column.
      .$castTo<{ total: number | string | bigint }>()
      .executeTakeFirstOrThrow()
    return Number(row.total)
  }
  if (count === 'in-page') {
    // The count as a scalar subquery of the page's statement: one round trip, the same two scans.
    const counted = filtered
      .select((eb) => eb.fn.countAll().as('total'))
      .$castTo<{ total: number | string | bigint }>()
    const rows = (await page
      .select(sql<number | string | bigint>`(${counted})`.as('pageTotal'))
      .execute()) as (O & { pageTotal?: number | string | bigint })[]
    // A page past the end has no row to carry it.
    const total = rows.length ? Number(rows[0]!.pageTotal) : await countAll()
    for (const r of rows) delete r.pageTotal
    return { total, rows }
  }
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

/**
 * The ids of one page, newest first, of `matches` (a query selecting `id` and `createdAt`) and the
 * number of all of them (`matches` on each row), from one scan: for searches whose indexes find
 * every match anyway, so that a separate count would only repeat the scan. Counted in the inner
 * query and ordered outside it: with the order inside, the planner walks the creation-time index
 * over the whole table, thinking it stops after one page.
 */
export function newestIdsCounted<D, TB extends keyof D>(
  ex: Executor,
  matches: SelectQueryBuilder<D, TB, { id: string; createdAt: Date }>,
  page: { limit: number; offset: number },
) {
  return ex
    .selectFrom(
      matches
        .select(sql<string | number>`count(*) over ()`.as('matches'))
        // The selection's type does not resolve over a generic table: it is these columns.
        .$castTo<{ id: string; createdAt: Date; matches: string | number }>()
        .as('m'),
    )
    .select(['m.id', 'm.matches'])
    .orderBy('m.createdAt', 'desc')
    .orderBy('m.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
}
