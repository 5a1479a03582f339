// The SQL of the transaction statistics: the caller's records counted and summed per UTC day or
// month since a start, over the owner's index (transactions_owner).
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'

export type Bucket = 'day' | 'month'

/** Statuses a statistic leaves out: what never moved value. */
const LEFT_OUT = ['failed', 'cancelled'] as const

const bucketOf = (unit: Bucket) =>
  sql<string>`to_char(date_trunc(${unit}, created_at at time zone 'UTC'), 'YYYY-MM-DD')`

export const transactionStatsRepo = {
  /** How many records per bucket since `from`. */
  counts(ex: Executor, ownerId: string, unit: Bucket, from: Date) {
    return ex
      .selectFrom('transactions')
      .select([bucketOf(unit).as('date'), sql<string>`count(*)`.as('count')])
      .where('ownerId', '=', ownerId)
      .where('createdAt', '>=', from)
      .where('status', 'not in', LEFT_OUT)
      .groupBy(sql`1`)
      .execute()
  },

  /** Sums per type, coin and bucket since `from` (amounts in base units, USD in dollars). */
  totals(ex: Executor, ownerId: string, unit: Bucket, from: Date) {
    return ex
      .selectFrom('transactions')
      .select([
        'type',
        'coin',
        bucketOf(unit).as('date'),
        sql<string>`sum(amount)`.as('amount'),
        sql<string>`coalesce(sum(usd_value), 0)`.as('usdValue'),
        sql<string>`count(*)`.as('count'),
      ])
      .where('ownerId', '=', ownerId)
      .where('createdAt', '>=', from)
      .where('status', 'not in', LEFT_OUT)
      .groupBy(['type', 'coin', sql`3`])
      .orderBy(sql`3`)
      .orderBy('type')
      .orderBy('coin')
      .execute()
  },
}
