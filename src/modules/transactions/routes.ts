// HTTP for the caller's transactions (#24, #25).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, envelope, guardedErrors, IdParams, ok } from '../../http/schemas.ts'
import { Transaction, TransactionList, TransactionListQuery } from './schemas.ts'
import type { TransactionService } from './service.ts'

export const transactionRoutes: FastifyPluginAsyncTypebox<{ transactions: TransactionService }> = async (
  app,
  { transactions },
) => {
  const tags = ['transactions']

  app.get(
    '/v1/transaction',
    {
      schema: {
        operationId: 'listTransactions',
        summary: "The caller's transactions, newest first (#24)",
        description:
          'Filters: `type` (deposit | withdrawal), `status`, `coin` (reference). `page` from 1, `limit` default 12, at most 100; `total` counts every match.',
        tags,
        security: bearer,
        querystring: TransactionListQuery,
        response: { 200: envelope(TransactionList, 'Transactions'), ...guardedErrors() },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      const q = req.query
      const data = await transactions.list(caller(req).userId, {
        page: q.page ?? 1,
        limit: q.limit ?? 12,
        ...(q.type ? { type: q.type } : {}),
        ...(q.status ? { status: q.status } : {}),
        ...(q.coin ? { coin: q.coin } : {}),
      })
      return ok(data, 'Transactions')
    },
  )

  app.get(
    '/v1/transaction/:id',
    {
      schema: {
        operationId: 'getTransaction',
        summary: 'One of the caller’s transactions (#25)',
        description: "Another user's transaction answers 404 like an unknown id.",
        tags,
        security: bearer,
        params: IdParams,
        response: {
          200: envelope(Transaction, 'Transaction'),
          ...guardedErrors({
            NOT_FOUND: { when: 'no transaction of the caller has this id', message: 'transaction not found' },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await transactions.get(caller(req).userId, req.params.id), 'Transaction'),
  )
}
