// HTTP for withdrawals (#22, #23).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Db } from '../../db/index.ts'
import { caller } from '../../http/auth.ts'
import { errors } from '../../http/errors.ts'
import { idempotent } from '../../http/idempotency.ts'
import {
  bearer,
  envelope,
  guardedErrors,
  IDEMPOTENCY_CASES,
  ok,
  withIdempotencyKey,
} from '../../http/schemas.ts'
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
        security: bearer,
        ...withIdempotencyKey,
        body: CreateWithdrawalBody,
        response: {
          200: envelope(CreateWithdrawalData, 'Withdrawal pending'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'a field fails its schema, an unknown coin, more decimals than the coin has, a malformed or wrongly checksummed address, the caller’s own address, or no `code` while two-factor is on',
            INVALID_CREDENTIALS: { when: 'the password is wrong', message: 'Wrong password' },
            INVALID_CODE: 'two-factor is on and the code is wrong, used or expired',
            ...IDEMPOTENCY_CASES,
            INSUFFICIENT_BALANCE: 'the wallet holds less than amount + the network fee',
            IDENTITY_VERIFICATION_REQUIRED:
              'KYC_REQUIRED_FOR names this coin and amount and the account’s identity is not verified (docs/verification.md)',
            BUSINESS_RULE: {
              when: 'the amount is below the smallest withdrawal (the network fee)',
              message: 'The smallest withdrawal is 0.001 AVAX (the network fee)',
              data: { minimum: 0.001 },
            },
            TOO_MANY_ATTEMPTS: 'two-factor is on and 5 wrong codes were sent; request a new one',
            RATE_LIMITED: '5 wrong passwords of the account within 15 minutes; see `Retry-After`',
            UNAVAILABLE: {
              when: 'the USD rate of the coin cannot be had right now',
              message: 'The USD rate of this coin is unavailable right now; try again shortly',
            },
            COIN_HALTED: {
              when: 'the coin is halted by settlement (a ledger/chain mismatch or a deep chain reorganisation) until an operator resumes it; `data.coin` names it: nothing is held or queued',
              message: 'Payments in USDC are paused while the platform checks its balances; try again later',
              data: { coin: 'usdc' },
            },
          }),
        },
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
        security: bearer,
        querystring: WithdrawalListQuery,
        response: {
          200: envelope(WithdrawalList, 'Withdrawals'),
          ...guardedErrors({
            FORBIDDEN: {
              when: '`owner` is not the caller’s own id',
              message: 'Only your own withdrawals can be listed',
            },
          }),
        },
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
