// HTTP for escrow (spec #13–#15) and the additions: cancel, and pay from the in-app wallet.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Db } from '../../db/index.ts'
import { caller } from '../../http/auth.ts'
import { idempotent } from '../../http/idempotency.ts'
import {
  bearer,
  EmptyObject,
  type ErrorCases,
  envelope,
  guardedErrors,
  IDEMPOTENCY_CASES,
  ok,
  withIdempotencyKey,
} from '../../http/schemas.ts'
import { HALTED, okOnce, RATE_UNAVAILABLE } from './route-parts.ts'
import { EscrowIdBody, InitiateBody, PayBody, Quote, Validation } from './schemas.ts'
import type { EscrowService } from './service.ts'

/** What every escrow operation can answer beside its own cases. */
const escrowCases = (cases: ErrorCases): ErrorCases => ({
  NOT_FOUND: { when: 'no escrow with this id is yours (as payer or receiver)', message: 'escrow not found' },
  ...cases,
})
const PAUSED = 'the chain or the USD rate is unreachable right now'

export const escrowRoutes: FastifyPluginAsyncTypebox<{ escrow: EscrowService; db: Db }> = async (
  app,
  { escrow, db },
) => {
  const tags = ['escrow']
  const security = bearer

  app.post(
    '/v1/escrow/initiate',
    {
      schema: {
        operationId: 'initiateEscrow',
        summary: 'Start an escrow for a job and get the payment quote (#13)',
        description:
          'Creates the collection (the caller is the creator and payer; `receiverId` is paid at release), the escrow with its own payment address, and the quote. `amount` is USD with at most two decimals, 1.00 to 1000000000. Coin amounts are rounded up to at most 8 decimals (and 15 significant digits) so the JSON numbers are exact; the `*BaseUnits` strings give the same amounts in base units. The rate holds until `expiresAt`; a later payment is still credited in coin units: the escrow is paid once `amountToPay` coins arrived, whatever the rate then. Unknown receiver: 404; the caller as receiver, a past dueDate, an unknown coin: 400. Honours `Idempotency-Key`.',
        tags,
        security,
        ...withIdempotencyKey,
        body: InitiateBody,
        response: {
          200: envelope(Quote, 'Escrow initiated; payment awaited'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'a field fails its schema, an unknown or inactive coin, an amount that is not 1.00 to 1000000000 USD with two decimals, a past dueDate, or the caller as receiver',
            NOT_FOUND: {
              when: 'the receiver (or the parent collection) does not exist',
              message: 'receiver not found',
            },
            ...IDEMPOTENCY_CASES,
            ESCROW_AMOUNT_OUT_OF_RANGE:
              'the amount cannot be quoted in the coin (too small or too large at the current rate)',
            PARENT_ESCROW_NOT_FUNDED:
              'the parent collection’s escrow is not paid, or is released or being released',
            PARENT_ESCROW_PARTLY_RELEASED: 'the parent escrow has been partly released',
            UNAVAILABLE: RATE_UNAVAILABLE,
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req, reply) =>
      okOnce(db, req, reply, 'Escrow initiated; payment awaited', (userId) =>
        escrow.initiate(userId, req.body),
      ),
  )

  app.post(
    '/v1/escrow/validate',
    {
      schema: {
        operationId: 'validateEscrow',
        summary: 'Check the chain for the escrow payment now (#14)',
        description:
          'Scans the chain for payments to the escrow address, then answers what it received. Status: `waiting` (unpaid or partly paid), `paid`, `released`, `cancelled`. The payer and the receiver may call it; anyone else gets 404.',
        tags,
        security,
        body: EscrowIdBody,
        response: {
          200: envelope(Validation, 'Payment has already been made'),
          ...guardedErrors(escrowCases({})),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      const r = await escrow.validate(caller(req).userId, req.body.escrowId)
      return ok(r.data, r.message)
    },
  )

  app.post(
    '/v1/escrow/release',
    {
      schema: {
        operationId: 'releaseEscrow',
        summary: 'Release a paid escrow to the receiver (#15)',
        description:
          'Payer only (403 for the receiver, 404 for anyone else), once (409 when released or being released), only when paid (422 before). Sends the payout to the receiver’s wallet, the network fee to the gas wallet and the platform fee to the platform’s fee address, each an on-chain transfer recorded as a `payout` transaction; an overpayment goes back to the payer’s wallet. Failed transfers are retried; when one ran out of retries, calling this again retries it (also a failed refund of a payment that arrived after the release). A parent escrow is released only once every child funding is settled (422 before). Honours `Idempotency-Key`.',
        tags,
        security,
        ...withIdempotencyKey,
        body: EscrowIdBody,
        response: {
          200: envelope(EmptyObject, 'Escrow release started: the payout and fees are being sent'),
          ...guardedErrors(
            escrowCases({
              FORBIDDEN: {
                when: 'the caller is the receiver, not the payer',
                message: 'Only the payer may release this escrow',
              },
              CONFLICT: {
                when: 'the escrow is released already',
                message: 'This escrow has already been released',
              },
              ESCROW_RELEASE_IN_PROGRESS: 'the escrow is being released (its payouts are under way)',
              ESCROW_CANCELLED: { when: 'the escrow was cancelled', message: 'This escrow was cancelled' },
              ESCROW_NOT_RELEASABLE: 'the escrow changed state while the release was prepared',
              ...IDEMPOTENCY_CASES,
              BUSINESS_RULE: {
                when: 'the escrow is not paid yet',
                message: 'The escrow has not been paid yet',
              },
              ESCROW_CHILD_FUNDING_PENDING: 'a child escrow funded from it is not settled yet',
              ESCROW_NO_RECEIVER: 'the collection has no assigned receiver yet',
              ESCROW_SELF_RELEASE: 'the receiver is the payer',
              ESCROW_UNDERFUNDED: 'the escrow holds less than its payouts',
              JOB_IN_DISPUTE: 'the job is in dispute: its escrow is frozen',
              UNAVAILABLE: PAUSED,
              COIN_HALTED: HALTED,
            }),
          ),
        },
      },
      onRequest: app.authenticate,
    },
    async (req, reply) => {
      const userId = caller(req).userId
      return idempotent(db, req, reply, userId, async () => {
        const r = await escrow.release(userId, req.body.escrowId)
        return { statusCode: 200, body: ok({}, r.message) }
      })
    },
  )

  app.post(
    '/v1/escrow/cancel',
    {
      schema: {
        operationId: 'cancelEscrow',
        summary: 'Cancel an unpaid escrow',
        description:
          'Payer only, while the escrow is `waiting`; a partial payment goes back to the payer’s wallet, and so does anything paid to the address later. 409 once paid or cancelled (calling it again on a cancelled escrow whose refund ran out of retries sends that refund again). Honours `Idempotency-Key`.',
        tags,
        security,
        ...withIdempotencyKey,
        body: EscrowIdBody,
        response: {
          200: envelope(EmptyObject, 'Escrow cancelled'),
          ...guardedErrors(
            escrowCases({
              FORBIDDEN: {
                when: 'the caller is the receiver, not the payer',
                message: 'Only the payer may cancel this escrow',
              },
              ESCROW_ALREADY_PAID: {
                when: 'the escrow is paid (release it instead)',
                message: 'A paid escrow cannot be cancelled; release it instead',
              },
              ESCROW_CANCELLED: {
                when: 'the escrow is cancelled already',
                message: 'This escrow is already cancelled',
              },
              ...IDEMPOTENCY_CASES,
              UNAVAILABLE: PAUSED,
              COIN_HALTED: HALTED,
            }),
          ),
        },
      },
      onRequest: app.authenticate,
    },
    async (req, reply) => {
      const userId = caller(req).userId
      return idempotent(db, req, reply, userId, async () => {
        const r = await escrow.cancel(userId, req.body.escrowId)
        return { statusCode: 200, body: ok({}, r.message) }
      })
    },
  )

  app.post(
    '/v1/escrow/pay',
    {
      schema: {
        operationId: 'payEscrow',
        summary: 'Pay an escrow from the in-app wallet',
        description:
          'Payer only, while `waiting`. Moves what is still missing of `amountToPay` from the payer’s wallet on chain to the escrow address (the wallet is held at once; the escrow is paid when the transfer is confirmed; a transfer that fails for good returns the amount to the wallet). Needs the account `password` (401 when wrong) and, with two-factor login on, the current `code` (authenticator, or the code mailed by POST /v1/account/2fa/email). 422 INSUFFICIENT_BALANCE when the wallet holds less; 409 when a payment is already under way (until it failed or was credited to the escrow). Gas is the platform’s. Honours `Idempotency-Key`.',
        tags,
        security,
        ...withIdempotencyKey,
        body: PayBody,
        response: {
          200: envelope(
            EmptyObject,
            'Payment sent from your wallet; the escrow is paid once the transfer is confirmed',
          ),
          ...guardedErrors(
            escrowCases({
              VALIDATION_ERROR: 'a field fails its schema, or no `code` while two-factor login is on',
              INVALID_CREDENTIALS: { when: 'the password is wrong', message: 'Wrong password' },
              INVALID_CODE: 'two-factor is on and the code is wrong, used or expired',
              FORBIDDEN: {
                when: 'the caller is the receiver, not the payer',
                message: 'Only the payer may pay this escrow',
              },
              ESCROW_NOT_AWAITING_PAYMENT: 'the escrow is paid, released or cancelled',
              ESCROW_ALREADY_PAID: 'what arrived already covers the amount to pay',
              ESCROW_PAYMENT_IN_PROGRESS: 'a payment of the escrow is under way',
              ...IDEMPOTENCY_CASES,
              INSUFFICIENT_BALANCE: {
                when: 'the wallet holds less than what is still missing',
                message: 'Your wallet holds less than the amount to pay',
              },
              TOO_MANY_ATTEMPTS: 'two-factor is on and 5 wrong codes were sent; request a new one',
              RATE_LIMITED: '5 wrong passwords of the account within 15 minutes; see `Retry-After`',
              UNAVAILABLE: PAUSED,
              COIN_HALTED: HALTED,
            }),
          ),
        },
      },
      onRequest: app.authenticate,
    },
    async (req, reply) => {
      const userId = caller(req).userId
      return idempotent(db, req, reply, userId, async () => {
        const r = await escrow.pay(userId, req.body)
        return { statusCode: 200, body: ok({}, r.message) }
      })
    },
  )
}
