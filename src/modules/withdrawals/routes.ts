// HTTP for withdrawals (#22, #23).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Db } from '../../db/index.ts'
import { caller } from '../../http/auth.ts'
import { errors } from '../../http/errors.ts'
import { idempotent } from '../../http/idempotency.ts'
import { commonErrors, envelope, ok } from '../../http/schemas.ts'
import { CreateWithdrawalBody, CreateWithdrawalData, WithdrawalList, WithdrawalListQuery } from './schemas.ts'
import type { WithdrawalService } from './service.ts'

export const withdrawalRoutes: FastifyPluginAsyncTypebox<{ withdrawals: WithdrawalService; db: Db }> = async (
  app,
  { withdrawals, db },
) => {
  const tags = ['withdrawals']

  app.post(
    '/v1/withdrawals/',
    {
      schema: {
        operationId: 'createWithdrawal',
        summary: 'Withdraw to an outside address (#22)',
        description:
          'Holds amount + the network fee from the wallet and queues the transfer; answers `pending` at once. Statuses: pending → processing → completed | failed (after retries; the hold goes back to the wallet). Wrong password → 401 INVALID_CREDENTIALS (5 wrong passwords within 15 minutes, counted per account across every password-confirmed action → 429); two-factor on → `code` required. Insufficient balance → 422 INSUFFICIENT_BALANCE; below the minimum (the fee) → 422 BUSINESS_RULE. Honours `Idempotency-Key`.',
        tags,
        security: [{ bearer: [] }],
        body: CreateWithdrawalBody,
        response: { 200: envelope(CreateWithdrawalData), ...commonErrors },
      },
      onRequest: app.authenticate,
    },
    async (req, reply) => {
      const { userId } = caller(req)
      return idempotent(db, req, reply, userId, async (key) => ({
        statusCode: 200,
        body: ok(await withdrawals.create(userId, req.body, req.ip ?? null, key), 'Withdrawal pending'),
      }))
    },
  )

  app.get(
    '/v1/withdrawals/',
    {
      schema: {
        operationId: 'listWithdrawals',
        summary: "The caller's withdrawals, newest first (#23)",
        description:
          'Query: page (from 1), limit (default 12, max 100), status, coin, and owner: only the caller’s own id is accepted (the public SDK sends it); any other id answers 403 FORBIDDEN, whether or not it names an account, since one user never lists another’s withdrawals.',
        tags,
        security: [{ bearer: [] }],
        querystring: WithdrawalListQuery,
        response: { 200: envelope(WithdrawalList), ...commonErrors },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      const q = req.query
      const { userId } = caller(req)
      if (q.owner !== undefined && q.owner !== userId)
        throw errors.forbidden('Only your own withdrawals can be listed')
      return ok(
        await withdrawals.list(userId, {
          page: q.page ?? 1,
          limit: q.limit ?? 12,
          ...(q.status ? { status: q.status } : {}),
          ...(q.coin ? { coin: q.coin } : {}),
        }),
        'Withdrawals',
      )
    },
  )
}
