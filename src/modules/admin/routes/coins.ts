// Coins: the list with their state and USD rate, a token added at run time, activate, deactivate
// and a static USD rate, effective in every process without a restart.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { envelope, ok } from '../../../http/schemas.ts'
import type { AdminAccess } from '../access.ts'
import type { AdminCoins } from '../coins.ts'
import { ReasonBody } from '../schemas.ts'
import { AddCoinBody, AdminCoin, RateBody } from '../schemas-coins.ts'
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
        summary:
          'Every coin, configured or added at run time: active or not, halted or not, and its USD rate',
        tags,
        security,
        response: { 200: envelope(Type.Array(AdminCoin)), ...adminErrors() },
      },
    },
    async () => ok(await coins.list()),
  )

  app.post(
    '/v1/admin/coins',
    {
      schema: {
        operationId: 'adminAddCoin',
        summary:
          'Add an ERC-20 token already deployed on the configured chain: every process takes it without a restart (audited)',
        description:
          'The contract is read first: it must have code and answer `decimals()` (equal to `decimals` when given). The coin starts inactive unless `active` is true; without a price feed an active coin needs `rate`. Deposits of the token to custodial addresses are credited from its addition on.',
        tags,
        security,
        body: AddCoinBody,
        response: {
          200: envelope(AdminCoin, 'Coin added'),
          ...adminErrors({
            VALIDATION_ERROR:
              'a field fails its schema, the address has a wrong checksum, or the chain is not the configured one',
            COIN_EXISTS:
              "the reference, the symbol or the contract is a coin's already (retired coins included)",
            CONTRACT_NOT_FOUND: 'no contract at the address',
            CONTRACT_NOT_ERC20: 'the contract is no ERC-20 token',
            TOKEN_DECIMALS_MISMATCH: 'its decimals differ from `decimals`',
            TOKEN_DECIMALS_UNSUPPORTED: 'its decimals exceed 36',
            COIN_RATE_REQUIRED: 'the coin would be active without a USD rate (no feed configured)',
            UNAVAILABLE: 'the chain could not be read',
          }),
        },
      },
    },
    async (req) => {
      const { reason, ...input } = req.body
      return ok(await coins.add(actorOf(req), input, reason), 'Coin added')
    },
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
              COIN_ALREADY_IN_STATE: active ? 'the coin is active already' : 'the coin is inactive already',
              ...(active
                ? { COIN_RATE_REQUIRED: 'the coin has no USD rate and no price feed is configured' }
                : { NATIVE_COIN_REQUIRED: 'it is the native coin' }),
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
          ...adminErrors({
            VALIDATION_ERROR: 'an unknown coin, or a rate that is not a positive decimal',
            COIN_RATE_REQUIRED:
              'null for an active coin that has no other USD rate, with no price feed configured',
          }),
        },
      },
    },
    async (req) =>
      ok(await coins.setRate(actorOf(req), req.params.coin, req.body.usdRate, req.body.reason), 'Rate set'),
  )
}
