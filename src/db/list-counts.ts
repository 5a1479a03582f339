// The totals of the unfiltered browse lists, kept by triggers (migration 0036): the rows everyone
// may see of the people search (`people`: live, verified, public accounts) and of the collection
// list (`collections`: live, public collections). The lists add what only the viewer may see.
import { type RawBuilder, sql } from 'kysely'
import type { Executor } from './index.ts'

export type CountedList = 'people' | 'collections'

/** The number of rows of `list` that everyone may see. */
export async function listCount(ex: Executor, list: CountedList): Promise<number> {
  const { rows } = await sql<{ n: string | number }>`
    select coalesce(sum(n), 0) as n from list_counts where list = ${list}`.execute(ex)
  return Number(rows[0]?.n ?? 0)
}

/** The same number as SQL, for a list to read beside its page in the same query. */
export function listCountSql(list: CountedList): RawBuilder<string | number> {
  return sql<string | number>`(select coalesce(sum(n), 0) from list_counts where list = ${list})`
}
