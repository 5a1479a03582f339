// The transaction statistics contract: the SDK's ITransactionStatsDto and AggTxns.
import { Type } from 'typebox'
import { STATS_FORMATS } from './stats.ts'

const WINDOWS =
  '`weekly`: the last 7 days, per day; `monthly`: the last 30 days, per day; `yearly`: the last 12 months, per month (UTC, ending today)'
const Format = (byDefault: string) =>
  Type.Union(
    STATS_FORMATS.map((f) => Type.Literal(f)),
    { description: `${WINDOWS}. Default \`${byDefault}\`.` },
  )

export const StatsQuery = Type.Object(
  { format: Type.Optional(Format('weekly')) },
  { additionalProperties: false },
)

export const AggregateQuery = Type.Object(
  { format: Type.Optional(Format('yearly')) },
  { additionalProperties: false },
)

export const TransactionStatsList = Type.Array(
  Type.Object({
    _id: Type.Integer({
      description:
        'the bucket: ISO weekday (1 Monday … 7 Sunday) weekly, day of the month monthly, month (1–12) yearly',
    }),
    count: Type.Integer({
      description: 'the caller’s transactions in it (failed and cancelled ones left out)',
    }),
    date: Type.String({ format: 'date', description: 'the first day of the bucket, `YYYY-MM-DD` (UTC)' }),
  }),
  {
    $id: 'TransactionStats',
    description: 'Every bucket of the window, oldest first, 0 where there was none (ITransactionStatsDto[]).',
    examples: [
      [
        { _id: 1, count: 0, date: '2026-11-23' },
        { _id: 2, count: 3, date: '2026-11-24' },
      ],
    ],
  },
)

export const AggregateStatsList = Type.Array(
  Type.Object({
    type: Type.String({ description: '`deposit` or `withdrawal`' }),
    coin: Type.String({ description: 'the coin reference the amount is in' }),
    amount: Type.Number({ description: 'the sum in the coin’s units' }),
    usdValue: Type.Number({ description: 'the sum of the USD values at transaction time' }),
    count: Type.Integer(),
    date: Type.String({ format: 'date', description: 'the first day of the bucket, `YYYY-MM-DD` (UTC)' }),
  }),
  {
    $id: 'TransactionAggregateStats',
    description:
      'Totals per type, coin and bucket where there were any, oldest first (AggTxns[], with `coin`, `usdValue` and `count` beside `type`, `amount`, `date`).',
    examples: [
      [
        { type: 'deposit', coin: 'usdc', amount: 250, usdValue: 250, count: 2, date: '2026-10-01' },
        { type: 'withdrawal', coin: 'avax', amount: 0.5, usdValue: 12.5, count: 1, date: '2026-11-01' },
      ],
    ],
  },
)
