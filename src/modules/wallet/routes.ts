// HTTP for the caller's wallets and the key export (#18–#20).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Config } from '../../config.ts'
import { caller } from '../../http/auth.ts'
import { authLimiter } from '../../http/rate-limit.ts'
import { bearer, envelope, guardedErrors, ok } from '../../http/schemas.ts'
import {
  CoinParams,
  CoinWallet,
  ExportKeyBody,
  ExportKeyData,
  WalletIdParams,
  WalletSummary,
} from './schemas.ts'
import type { WalletService } from './service.ts'

export const walletRoutes: FastifyPluginAsyncTypebox<{ wallets: WalletService; config: Config }> = async (
  app,
  { wallets, config },
) => {
  const tags = ['wallet']
  const RATES_DOWN = {
    when: 'the USD rate of a coin cannot be had right now (price feed down, last prices too old)',
    message: 'USD rates are unavailable right now; try again shortly',
  }

  app.get(
    '/v1/wallet',
    {
      schema: {
        operationId: 'getWallet',
        summary: "The caller's wallets, one per active coin, with USD values (#18)",
        description:
          '`amount` is the balance with six decimals rounded down; `usdValue` is the exact balance × the USD rate, rounded to cents; `totalBalance` and `value` are the sum of the wallets.',
        tags,
        security: bearer,
        response: { 200: envelope(WalletSummary, 'Wallet'), ...guardedErrors({ UNAVAILABLE: RATES_DOWN }) },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await wallets.getWallet(caller(req).userId), 'Wallet'),
  )

  app.get(
    '/v1/wallet/coin/:coin',
    {
      schema: {
        operationId: 'getCoinWallet',
        summary: "The caller's wallet of one coin (#19)",
        description: 'An unknown or inactive coin reference answers 400 VALIDATION_ERROR.',
        tags,
        security: bearer,
        params: CoinParams,
        response: {
          200: envelope(CoinWallet, 'Wallet'),
          ...guardedErrors({
            VALIDATION_ERROR: 'an unknown or inactive coin reference',
            UNAVAILABLE: RATES_DOWN,
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await wallets.getCoinWallet(caller(req).userId, req.params.coin), 'Wallet'),
  )

  app.get(
    '/v1/wallet/:id',
    {
      schema: {
        operationId: 'getWalletById',
        summary: "One of the caller's wallets by id",
        description:
          'The same answer as #19, found by the wallet `_id` that #19 answers or by the entry `id` of #18 (the coin reference). Another user’s wallet id or an unknown one answers 404.',
        tags,
        security: bearer,
        params: WalletIdParams,
        response: {
          200: envelope(CoinWallet, 'Wallet'),
          ...guardedErrors({
            NOT_FOUND: { when: 'no wallet of the caller has this id', message: 'wallet not found' },
            UNAVAILABLE: RATES_DOWN,
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await wallets.getWalletById(caller(req).userId, req.params.id), 'Wallet'),
  )

  app.post(
    '/v1/wallet/export-secret-key',
    {
      schema: {
        operationId: 'exportSecretKey',
        summary: "Export the wallet's private key (#20)",
        description:
          'Needs the account password (401 INVALID_CREDENTIALS; 429 RATE_LIMITED after 5 wrong passwords of the account within 15 minutes, counted with every action confirmed by the password) and a code: the current authenticator code when google_auth two-factor is on, otherwise the 6-digit code mailed by POST /v1/account/2fa/email (400 INVALID_CODE; 5 wrong codes → 429). Rate limited and audited. After an export, transfers signed outside the platform are booked as external withdrawals.',
        tags,
        security: bearer,
        body: ExportKeyBody,
        response: {
          200: envelope(ExportKeyData, 'Secret key exported'),
          ...guardedErrors({
            INVALID_CREDENTIALS: { when: 'the password is wrong', message: 'Wrong password' },
            INVALID_CODE: 'the code is wrong, used or expired, or none was requested',
            TOO_MANY_ATTEMPTS: '5 wrong codes: request a new one with POST /v1/account/2fa/email',
            RATE_LIMITED:
              'too many exports from this IP address or account, or 5 wrong passwords of the account within 15 minutes; see `Retry-After`',
          }),
        },
      },
      onRequest: app.authenticate,
      preHandler: authLimiter(app, config.rateLimit, 'export-key'),
    },
    async (req) =>
      ok(await wallets.exportKey(caller(req).userId, req.body, req.ip ?? null), 'Secret key exported'),
  )
}
