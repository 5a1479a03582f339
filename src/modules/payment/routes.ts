// HTTP for the payment configuration (spec #16, #17, #21).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { commonErrors, envelope, ok } from '../../http/schemas.ts'
import { CoinSchema, ExchangeRatesSchema, RpcConfigSchema } from './schemas.ts'
import type { PaymentService } from './service.ts'

export const paymentRoutes: FastifyPluginAsyncTypebox<{ payment: PaymentService }> = async (
  app,
  { payment },
) => {
  const security = [{ bearer: [] }]

  app.get(
    '/v1/payment/coins',
    {
      schema: {
        operationId: 'listCoins',
        summary: 'Supported coins (#16)',
        description: 'Active coins in display order. Requires a bearer token.',
        tags: ['payment'],
        security,
        response: { 200: envelope(Type.Array(CoinSchema)), ...commonErrors },
      },
      onRequest: app.authenticate,
    },
    async () => ok(await payment.coinRecords(), 'Coins'),
  )

  app.get(
    '/v1/payment/rpc',
    {
      schema: {
        operationId: 'getRpcConfiguration',
        summary: 'Chain (RPC) configuration (#17)',
        description:
          'The active chain: its id, public JSON-RPC URLs for wallet apps, explorers and native currency. Requires a bearer token.',
        tags: ['payment'],
        security,
        response: { 200: envelope(RpcConfigSchema), ...commonErrors },
      },
      onRequest: app.authenticate,
    },
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
        security,
        response: {
          200: envelope(ExchangeRatesSchema),
          ...commonErrors,
          503: Type.Ref('ErrorEnvelope'),
        },
      },
      onRequest: app.authenticate,
    },
    async () => ok(await payment.exchangeRates(), 'Exchange rates'),
  )
}
