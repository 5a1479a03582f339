// The user-facing transaction records (spec #24, #25).
import type { FastifyInstance } from 'fastify'
import type { Db } from '../../db/index.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import type { RateSource } from '../../platform/rates/types.ts'
import type { CoinService } from '../payment/types.ts'
import { transactionRoutes } from './routes.ts'
import { TransactionService } from './service.ts'
import { TransactionStats } from './stats.ts'
import { transactionStatsRoutes } from './stats-routes.ts'

/** A rate a price can be computed with (a positive decimal), else null. */
export { usableRate } from './service.ts'

export function buildTransactions(d: {
  db: Db
  clock: Clock
  chain: ChainAdapter
  coins: CoinService
  rates: RateSource
}) {
  return { transactions: new TransactionService(d), transactionStats: new TransactionStats(d) }
}

export async function transactionsHttp(
  app: FastifyInstance,
  s: { transactions: TransactionService; transactionStats: TransactionStats },
) {
  await app.register(transactionRoutes, { transactions: s.transactions })
  await app.register(transactionStatsRoutes, { stats: s.transactionStats })
}
