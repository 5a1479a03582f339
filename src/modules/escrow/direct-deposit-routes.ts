// HTTP for direct deposits (the client SDK's DirectDepositModule): public payment orders for a
// collection and their status. No token; limited per client IP (src/http/write-limits.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { envelope, errorResponses, noAuth, ok } from '../../http/schemas.ts'
import type { DirectDeposits } from './direct-deposit.ts'
import {
  DirectDepositBody,
  DirectDepositOrder,
  DirectDepositStatus,
  DirectDepositValidateBody,
} from './direct-deposit-schemas.ts'
import { RATE_UNAVAILABLE } from './route-parts.ts'

const HIDDEN = {
  when: 'no such collection, or a private or deleted one',
  message: 'collection not found',
}
const LIMITED = {
  when: 'too many requests from this address; `Retry-After` says when to retry',
  message: 'Too many requests; retry in 3600 seconds',
  data: { retryAfter: 3600 },
}

export const directDepositRoutes: FastifyPluginAsyncTypebox<{ deposits: DirectDeposits }> = async (
  app,
  { deposits },
) => {
  const tags = ['escrow']

  app.post(
    '/v1/payment-public/direct-deposit',
    {
      schema: {
        operationId: 'createDirectDeposit',
        summary: 'Pay a public collection without an account (a payment order)',
        description:
          'Public, no token. Anyone pays a public, open collection (status `pending` or `waiting`, not paid, with a `paymentFee` of 1.00 to 1000000000 USD): `amount` must be that price in USD (422 `PAYMENT_AMOUNT_MISMATCH` otherwise, `data.price`). The payer gives an `email` and/or a wallet `address` (the client SDK’s `owner` may carry either); the email is kept for the record and never looked up, so the answer is the same whether or not it belongs to an account. The order is an escrow of the collection with its own payment address and the quote of #13 (rate fixed, fee added, amounts rounded up; `amountToPayBaseUnits` exact); the deposit watcher credits what arrives there, and once the full `amountToPay` arrived the collection is funded (its creator releases it as any escrow). An order not paid by `expiresAt` (30 minutes) expires: what arrived is sent back to the payer’s `address`, or, when only an email was given, recorded for an operator to return. One order at a time per collection: 409 `PAYMENT_ORDER_PENDING` while another (or the creator’s own payment) awaits payment. Limited per client IP (429 `RATE_LIMITED`). See docs/direct-deposits.md.',
        tags,
        security: noAuth,
        body: DirectDepositBody,
        response: {
          200: envelope(DirectDepositOrder, 'Payment order created; payment awaited'),
          ...errorResponses({
            VALIDATION_ERROR:
              'a field fails its schema; no email or address; an invalid address; an unknown or inactive coin; an `amount` that is not USD with two decimals',
            NOT_FOUND: HIDDEN,
            PAYMENT_ORDER_PENDING: {
              when: 'another payment order of the collection (or its creator’s own payment) awaits payment',
              message:
                'Another payment of this collection is awaited; try again once it is paid or has expired',
            },
            COLLECTION_NOT_PAYABLE: {
              when: 'the collection is paid already, closed (completed, cancelled, in dispute), delivered, or has no price',
              message: 'This collection cannot be paid: it is paid already',
            },
            PAYMENT_AMOUNT_MISMATCH: {
              when: '`amount` is not the collection’s price; `data.price` is the price in USD',
              message: 'The amount must be the collection’s price: 150.00 USD',
              data: { price: 150, errors: [{ path: '/amount', message: 'must be 150.00' }] },
            },
            RATE_LIMITED: LIMITED,
            UNAVAILABLE: RATE_UNAVAILABLE,
          }),
        },
      },
    },
    async (req) => ok(await deposits.create(req.body), 'Payment order created; payment awaited'),
  )

  app.post(
    '/v1/payment-public/validate',
    {
      schema: {
        operationId: 'validateDirectDeposit',
        summary: 'Check a direct deposit’s payment now',
        description:
          'Public, no token. Asks the deposit watcher for a scan of the chain (waited for at most 5 s), applies what was credited to the order’s address, and answers the collection’s public fields (the client SDK’s IValidateDirectDepositResponse) with the order’s state in `paymentStatus` and `order`: `pending`, `paid`, `released`, `expired`, `cancelled` or `refunded`, what was received, and the refund (`none`, `sending`, `sent`, `failed`, or `operator` when the payer gave only an email). `order` names the order (its `orderId`); without it the collection’s latest order. Nothing about the payer is answered. 404 for an unknown or private collection, or an order of another collection. Limited per client IP.',
        tags,
        security: noAuth,
        body: DirectDepositValidateBody,
        response: {
          200: envelope(DirectDepositStatus, 'Payment has already been made'),
          ...errorResponses({
            VALIDATION_ERROR: 'a field fails its schema (e.g. `method` other than `crypto`)',
            NOT_FOUND: {
              when: 'no such collection (or a private one), or no such order of it',
              message: 'payment order not found',
            },
            RATE_LIMITED: {
              ...LIMITED,
              message: 'Too many requests; retry in 60 seconds',
              data: { retryAfter: 60 },
            },
          }),
        },
      },
    },
    async (req) => {
      const r = await deposits.validate(req.body)
      return ok(r.data, r.message)
    },
  )
}
