// HTTP for the caller's transaction statistics (the SDK's getTransactionStats and
// getAggregateTransactionStats). Static paths, so `stats` is never read as a transaction id.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, envelope, guardedErrors, ok } from '../../http/schemas.ts'
import type { TransactionStats } from './stats.ts'
import { AggregateQuery, AggregateStatsList, StatsQuery, TransactionStatsList } from './stats-schemas.ts'

export const transactionStatsRoutes: FastifyPluginAsyncTypebox<{ stats: TransactionStats }> = async (
  app,
  { stats },
) => {
  const tags = ['transactions']
  const BAD_FORMAT = {
    VALIDATION_ERROR: '`format` is not weekly, monthly or yearly, or an unknown query field',
  }

  app.get(
    '/v1/transaction/stats',
    {
      schema: {
        operationId: 'getTransactionStats',
        summary: 'How many transactions the caller had per day or month (ITransactionStatsDto[])',
        description:
          'Every bucket of the window, oldest first, with 0 where there was none. Failed and cancelled transactions are left out. UTC.',
        tags,
        security: bearer,
        querystring: StatsQuery,
        response: { 200: envelope(TransactionStatsList, 'Transaction stats'), ...guardedErrors(BAD_FORMAT) },
      },
      onRequest: app.authenticate,
    },
    async (req) =>
      ok(await stats.counts(caller(req).userId, req.query.format ?? 'weekly'), 'Transaction stats'),
  )

  app.get(
    '/v1/transaction/aggregate/stats',
    {
      schema: {
        operationId: 'getAggregateTransactionStats',
        summary: 'The caller’s totals per type, coin and day or month (AggTxns[])',
        description:
          'Sums of `amount` (coin units, one row per coin: amounts of different coins are never added) and of the USD values at transaction time, per type (deposit, withdrawal) and bucket, where there were any. Failed and cancelled transactions are left out. UTC.',
        tags,
        security: bearer,
        querystring: AggregateQuery,
        response: {
          200: envelope(AggregateStatsList, 'Aggregate transaction stats'),
          ...guardedErrors(BAD_FORMAT),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) =>
      ok(await stats.totals(caller(req).userId, req.query.format ?? 'yearly'), 'Aggregate transaction stats'),
  )
}
