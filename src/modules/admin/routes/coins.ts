// Coins: the list with their state and USD rate, activate, deactivate and a static USD rate,
// effective in every API process without a restart.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { envelope, ok } from '../../../http/schemas.ts'
import type { AdminAccess } from '../access.ts'
import type { AdminCoins } from '../coins.ts'
import { ReasonBody } from '../schemas.ts'
import { AdminCoin, RateBody } from '../schemas-coins.ts'
import { CoinParams } from '../schemas-money.ts'
import { actorOf, adminErrors, guardElevated, security, tags } from './common.ts'

export const adminCoinRoutes: FastifyPluginAsyncTypebox<{ access: AdminAccess; coins: AdminCoins }> = async (
  app,
  { access, coins },
) => {
  guardElevated(app, access)

  app.get(
    '/v1/admin/coins',
    {
      schema: {
        operationId: 'adminCoins',
        summary: 'Every configured coin: active or not, halted or not, and its USD rate',
        tags,
        security,
        response: { 200: envelope(Type.Array(AdminCoin)), ...adminErrors() },
      },
    },
    async () => ok(await coins.list()),
  )

  for (const active of [true, false]) {
    const verb = active ? 'activate' : 'deactivate'
    app.post(
      `/v1/admin/coins/:coin/${verb}`,
      {
        schema: {
          operationId: active ? 'adminActivateCoin' : 'adminDeactivateCoin',
          summary: active
            ? 'Activate a coin: it takes deposits to wallets, withdrawals and payments again'
            : 'Deactivate a coin: new deposits to wallets, withdrawals and escrow payments in it are refused from the next request; what is under way settles',
          tags,
          security,
          params: CoinParams,
          body: ReasonBody,
          response: {
            200: envelope(AdminCoin, active ? 'Coin activated' : 'Coin deactivated'),
            ...adminErrors({
              VALIDATION_ERROR: 'an unknown coin',
              CONFLICT: active
                ? 'the coin is active already'
                : 'the coin is inactive already, or it is the native coin',
            }),
          },
        },
      },
      async (req) =>
        ok(
          await coins.setActive(actorOf(req), req.params.coin, active, req.body.reason),
          active ? 'Coin activated' : 'Coin deactivated',
        ),
    )
  }

  app.post(
    '/v1/admin/coins/:coin/rate',
    {
      schema: {
        operationId: 'adminSetCoinRate',
        summary: 'Set a static USD rate for a coin (or null: back to the configured rate or the feed)',
        tags,
        security,
        params: CoinParams,
        body: RateBody,
        response: {
          200: envelope(AdminCoin, 'Rate set'),
          ...adminErrors({ VALIDATION_ERROR: 'an unknown coin, or a rate that is not a positive decimal' }),
        },
      },
    },
    async (req) =>
      ok(await coins.setRate(actorOf(req), req.params.coin, req.body.usdRate, req.body.reason), 'Rate set'),
  )
}
