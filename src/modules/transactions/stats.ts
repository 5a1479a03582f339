// Transaction statistics for charts (GET /v1/transaction/stats and /aggregate/stats, the SDK's
// ITransactionStatsDto and AggTxns): the caller's records per UTC day or month over a window that
// ends today — `weekly` the last 7 days, `monthly` the last 30 days, `yearly` the last 12 months.
import type { Db } from '../../db/index.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { unitsToNumber } from '../../platform/money/index.ts'
import { type Bucket, transactionStatsRepo } from './stats-repo.ts'

export const STATS_FORMATS = ['weekly', 'monthly', 'yearly'] as const
export type StatsFormat = (typeof STATS_FORMATS)[number]

interface Window {
  unit: Bucket
  /** the buckets' dates, oldest first, `YYYY-MM-DD` (UTC) */
  dates: string[]
  from: Date
}

const DAY = 86_400_000
const iso = (d: Date) => d.toISOString().slice(0, 10)

/** The buckets of a format ending at `now` (UTC). */
export function windowOf(format: StatsFormat, now: Date): Window {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  if (format === 'yearly') {
    const months = Array.from(
      { length: 12 },
      (_, i) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11 + i, 1)),
    )
    return { unit: 'month', dates: months.map(iso), from: months[0]! }
  }
  const days = format === 'weekly' ? 7 : 30
  const dates = Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY))
  return { unit: 'day', dates: dates.map(iso), from: dates[0]! }
}

/** A bucket's number: ISO weekday (1 Monday … 7 Sunday) weekly, day of month monthly, month yearly. */
function numberOf(format: StatsFormat, date: string): number {
  const d = new Date(`${date}T00:00:00Z`)
  if (format === 'weekly') return d.getUTCDay() === 0 ? 7 : d.getUTCDay()
  if (format === 'monthly') return d.getUTCDate()
  return d.getUTCMonth() + 1
}

export class TransactionStats {
  constructor(private readonly deps: { db: Db; clock: Clock; chain: ChainAdapter }) {}

  /** How many transactions per bucket, every bucket of the window (0 where none). */
  async counts(ownerId: string, format: StatsFormat) {
    const w = windowOf(format, this.deps.clock.now())
    const rows = await transactionStatsRepo.counts(this.deps.db, ownerId, w.unit, w.from)
    const byDate = new Map(rows.map((r) => [r.date, Number(r.count)]))
    return w.dates.map((date) => ({ _id: numberOf(format, date), count: byDate.get(date) ?? 0, date }))
  }

  /** Totals per type, coin and bucket where there were any, oldest first. */
  async totals(ownerId: string, format: StatsFormat) {
    const w = windowOf(format, this.deps.clock.now())
    const rows = await transactionStatsRepo.totals(this.deps.db, ownerId, w.unit, w.from)
    return rows.map((r) => {
      const decimals = this.deps.chain.coins.find((c) => c.reference === r.coin)?.decimals ?? 18
      return {
        type: r.type,
        coin: r.coin,
        amount: unitsToNumber(BigInt(r.amount), decimals),
        usdValue: Number(Number(r.usdValue).toFixed(2)),
        count: Number(r.count),
        date: r.date,
      }
    })
  }
}
