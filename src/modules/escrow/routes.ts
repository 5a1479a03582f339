// HTTP for escrow (spec #13–#15) and the additions: cancel, and pay from the in-app wallet.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Db } from '../../db/index.ts'
import { caller } from '../../http/auth.ts'
import { idempotent } from '../../http/idempotency.ts'
import { commonErrors, EmptyObject, envelope, ok } from '../../http/schemas.ts'
import { EscrowIdBody, InitiateBody, PayBody, Quote, Validation } from './schemas.ts'
import type { EscrowService } from './service.ts'

const errs = { ...commonErrors, 503: { $ref: 'ErrorEnvelope' } }

export const escrowRoutes: FastifyPluginAsyncTypebox<{ escrow: EscrowService; db: Db }> = async (
  app,
  { escrow, db },
) => {
  const tags = ['escrow']
  const security = [{ bearer: [] }]

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
        body: InitiateBody,
        response: { 200: envelope(Quote), ...errs },
      },
      onRequest: app.authenticate,
    },
    async (req, reply) => {
      const userId = caller(req).userId
      return idempotent(db, req, reply, userId, async () => ({
        statusCode: 200,
        body: ok(await escrow.initiate(userId, req.body), 'Escrow initiated; payment awaited'),
      }))
    },
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
        response: { 200: envelope(Validation), ...errs },
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
          'Payer only (403 for the receiver, 404 for anyone else), once (409 when released or being released), only when paid (422 before). Sends the payout to the receiver’s wallet, the network fee to the gas wallet and the platform fee to the treasury, each an on-chain transfer recorded as a `payout` transaction; an overpayment goes back to the payer’s wallet. Failed transfers are retried; when one ran out of retries, calling this again retries it (also a failed refund of a payment that arrived after the release). A parent escrow is released only once every child funding is settled (422 before). Honours `Idempotency-Key`.',
        tags,
        security,
        body: EscrowIdBody,
        response: { 200: envelope(EmptyObject), ...errs },
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
        body: EscrowIdBody,
        response: { 200: envelope(EmptyObject), ...errs },
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
        body: PayBody,
        response: { 200: envelope(EmptyObject), ...errs },
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
