// HTTP for the payment configuration (spec #16, #17, #21, and the public copies of #16 and #17).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type TSchema, Type } from 'typebox'
import { bearer, envelope, errorResponses, guardedErrors, noAuth, ok } from '../../http/schemas.ts'
import { CoinSchema, ExchangeRatesSchema, RpcConfigSchema } from './schemas.ts'
import type { PaymentService } from './service.ts'

export const paymentRoutes: FastifyPluginAsyncTypebox<{ payment: PaymentService }> = async (
  app,
  { payment },
) => {
  /**
   * The coins and the chain configuration are served twice: under /v1/payment with a bearer token
   * (#16, #17) and under /v1/payment-public without one (what the public SDK calls before sign-in).
   * Same handler, same response schema.
   */
  const guardedAndPublic = (
    name: string,
    op: { operationId: string; summary: string; description: string },
    response: TSchema,
    handler: () => Promise<unknown>,
  ) => {
    app.get(
      `/v1/payment/${name}`,
      {
        schema: {
          ...op,
          description: `${op.description} Requires a bearer token; the same answer is public at /v1/payment-public/${name}.`,
          tags: ['payment'],
          security: bearer,
          response: { 200: response, ...guardedErrors() },
        },
        onRequest: app.authenticate,
      },
      handler,
    )
    app.get(
      `/v1/payment-public/${name}`,
      {
        schema: {
          operationId: `${op.operationId}Public`,
          summary: `${op.summary}, without a token`,
          description: `${op.description} Public: no token needed; the same answer as /v1/payment/${name}.`,
          tags: ['payment'],
          security: noAuth,
          response: { 200: response, ...errorResponses({}) },
        },
      },
      handler,
    )
  }

  guardedAndPublic(
    'coins',
    {
      operationId: 'listCoins',
      summary: 'Supported coins (#16)',
      description: 'Active coins in display order.',
    },
    envelope(Type.Array(CoinSchema), 'Coins'),
    async () => ok(await payment.coinRecords(), 'Coins'),
  )

  guardedAndPublic(
    'rpc',
    {
      operationId: 'getRpcConfiguration',
      summary: 'Chain (RPC) configuration (#17)',
      description:
        'The active chain: its id, public JSON-RPC URLs for wallet apps, explorers and native currency.',
    },
    envelope(RpcConfigSchema, 'RPC configuration'),
    async () => ok(await payment.chain(), 'RPC configuration'),
  )

  app.get(
    '/v1/transaction/exchange',
    {
      schema: {
        operationId: 'getExchangeRates',
        summary: 'USD rate per coin (#21)',
        description:
          'USD per whole coin for every active coin, keyed by coin reference. 503 UNAVAILABLE when the price feed is down and its last prices are too old. Requires a bearer token.',
        tags: ['transactions'],
        security: bearer,
        response: {
          200: envelope(ExchangeRatesSchema, 'Exchange rates'),
          ...guardedErrors({
            UNAVAILABLE: {
              when: 'the price feed is down and its last prices are too old',
              message: 'USD rates are unavailable right now',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async () => ok(await payment.exchangeRates(), 'Exchange rates'),
  )
}
