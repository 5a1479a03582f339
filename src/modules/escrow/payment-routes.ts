// HTTP for the collection payment API (the client SDK's PaymentModule): fund a collection through
// its escrow, check the payment, release it in parts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Db } from '../../db/index.ts'
import { caller } from '../../http/auth.ts'
import { idempotent } from '../../http/idempotency.ts'
import {
  bearer,
  envelope,
  guardedErrors,
  IDEMPOTENCY_CASES,
  ok,
  withIdempotencyKey,
} from '../../http/schemas.ts'
import type { CollectionPayments } from './collection-payment.ts'
import {
  CollectionPaymentBody,
  FundBody,
  PaymentData,
  ReleaseAnswer,
  ReleaseBody,
} from './payment-schemas.ts'
import { HALTED, okOnce, RATE_UNAVAILABLE } from './route-parts.ts'
import { Validation } from './schemas.ts'

const HIDDEN = {
  when: 'no such collection, or one hidden from the caller',
  message: 'collection not found',
}

export const paymentRoutes: FastifyPluginAsyncTypebox<{ payments: CollectionPayments; db: Db }> = async (
  app,
  { payments, db },
) => {
  const tags = ['escrow']
  const security = bearer

  app.post(
    '/v1/payment/',
    {
      schema: {
        operationId: 'createCollectionPayment',
        summary: 'Fund a collection through an escrow and get the payment quote',
        description:
          'For a collection created with POST /v1/collection: creates its escrow (own payment address, quote as in #13) and answers the quote. The price is `usdValue` when given (USD, at most two decimals, 1.00 to 1000000000; anything else is 400), else the collection’s `paymentFee` (422 when that is not 1.00 to 1000000000 USD). Coin amounts are exact decimal strings; `usdFee` and `usdAmount` are USD strings with two decimals. Only the collection’s creator may fund it (403 for others who can see it, 404 when hidden or unknown). A collection whose escrow awaits payment answers that same quote again for the same coin (and the same `usdValue` when given); another coin or another `usdValue` is 409 (cancel the escrow with POST /v1/escrow/cancel first); a paid or released one is 409. The receiver is the collection’s assigned receiver, when it has one; without one the escrow can be paid but not released. Honours `Idempotency-Key`. Also served at `/v1/payment/`, the path the public SDK calls.',
        tags,
        security,
        ...withIdempotencyKey,
        body: FundBody,
        response: {
          200: envelope(PaymentData, 'Payment created; payment awaited'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'a field fails its schema, an unknown or inactive coin, or a `usdValue` that is not 1.00 to 1000000000 USD with two decimals',
            FORBIDDEN: {
              when: 'the caller can see the collection but did not create it',
              message: 'Only the collection’s creator may fund it',
            },
            NOT_FOUND: HIDDEN,
            ESCROW_COIN_MISMATCH: 'the collection’s escrow awaits payment in another coin',
            ESCROW_PRICE_MISMATCH: 'the collection’s escrow awaits payment of another usdValue',
            ESCROW_ALREADY_PAID: {
              when: 'the collection’s escrow is paid or released',
              message: 'This collection has already been paid',
            },
            ...IDEMPOTENCY_CASES,
            COLLECTION_PRICE_INVALID:
              'no `usdValue` and the collection’s paymentFee is not 1.00 to 1000000000 USD',
            ESCROW_AMOUNT_OUT_OF_RANGE: 'the price cannot be quoted in the coin',
            UNAVAILABLE: RATE_UNAVAILABLE,
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req, reply) =>
      okOnce(db, req, reply, 'Payment created; payment awaited', (userId) => payments.fund(userId, req.body)),
  )

  app.post(
    '/v1/payment/validate',
    {
      schema: {
        operationId: 'validateCollectionPayment',
        summary: 'Check the chain for a collection’s payment now',
        description:
          'Same as #14 for the collection’s escrow: scans the chain for payments to its address, then answers what it received and its status (`waiting`, `paid`, `released`, `cancelled`). The collection’s creator and receiver may call it (403 for others who can see the collection, 404 when hidden or unknown); 422 when the collection has no payment (never funded, or its escrow was cancelled). `status` (one of the client SDK’s payment statuses) is accepted and ignored.',
        tags,
        security,
        body: CollectionPaymentBody,
        response: {
          200: envelope(Validation, 'Payment has already been made'),
          ...guardedErrors({
            FORBIDDEN: {
              when: 'the caller is neither the creator nor the receiver',
              message: 'Only the collection’s creator and receiver may check its payment',
            },
            NOT_FOUND: HIDDEN,
            COLLECTION_NOT_FUNDED: {
              when: 'the collection has no payment (never funded, or its escrow was cancelled)',
              message: 'This collection has no payment yet: create it with POST /v1/payment/',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      const r = await payments.validate(caller(req).userId, req.body)
      return ok(r.data, r.message)
    },
  )

  app.post(
    '/v1/payment/release',
    {
      schema: {
        operationId: 'releaseCollectionPayment',
        summary: 'Release a collection’s payment, all of it or a part',
        description:
          '`amount` is USD of the collection’s escrowed price (at most two decimals; ≤ 0 or more decimals is 400, more than what remains is 422). It is converted at the escrow’s fixed quote: the part pays `amount / remaining` of what is left of the payout to the receiver and of the fee (the network fee of the part’s transfers to the gas wallet, the rest to the platform’s fee address); the last part takes exactly what is left, so the parts add up to a full release to the base unit. The rest stays in escrow for later calls; releasing all that remains completes the escrow as #15 does (an overpayment goes back to the payer). Creator only (403 for others who can see the collection, 404 when hidden); 422 before payment, when the collection has no payment, or when it has no receiver; 409 once all was released. Transfers of earlier parts that ran out of retries are sent again with the next call (and, once all was released, by calling again). Honours `Idempotency-Key`: a request run twice releases once.',
        tags,
        security,
        ...withIdempotencyKey,
        body: ReleaseBody,
        response: {
          200: envelope(
            ReleaseAnswer,
            'Released 50.00 USD (2 AVAX and the fees are being sent); 100.00 USD remain in escrow',
          ),
          ...guardedErrors({
            VALIDATION_ERROR:
              'a field fails its schema, or `amount` is not positive with at most two decimals',
            FORBIDDEN: {
              when: 'the caller can see the collection but did not create it',
              message: 'Only the collection’s creator may release its payment',
            },
            NOT_FOUND: HIDDEN,
            CONFLICT: {
              when: 'everything was released already',
              message: 'This escrow has already been released',
            },
            ESCROW_RELEASE_IN_PROGRESS: 'the escrow is being released (its payouts are under way)',
            ESCROW_CANCELLED: 'the escrow was cancelled',
            ESCROW_NOT_RELEASABLE: 'the escrow changed state while the release was prepared',
            ...IDEMPOTENCY_CASES,
            BUSINESS_RULE: {
              when: 'the escrow is not paid yet',
              message: 'The escrow has not been paid yet',
            },
            COLLECTION_NOT_FUNDED: 'the collection has no payment',
            ESCROW_CHILD_FUNDING_PENDING: 'a child escrow funded from it is not settled yet',
            ESCROW_NO_RECEIVER: 'the collection has no assigned receiver yet',
            ESCROW_SELF_RELEASE: 'the receiver is the payer',
            ESCROW_UNDERFUNDED: 'the escrow holds less than its payouts',
            JOB_IN_DISPUTE: 'the job is in dispute: its escrow is frozen',
            RELEASE_AMOUNT_TOO_HIGH: '`amount` is more than what remains in escrow',
            UNAVAILABLE: 'the chain is unreachable right now',
            COIN_HALTED: HALTED,
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req, reply) => {
      const userId = caller(req).userId
      return idempotent(db, req, reply, userId, async (key) => {
        const r = await payments.release(userId, req.body, key)
        return { statusCode: 200, body: ok(r.data, r.message) }
      })
    },
  )
}
