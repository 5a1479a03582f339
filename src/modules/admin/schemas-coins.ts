// Admin API resources about coins: each coin (configured or added at run time) with its state and
// USD rate, the body of a coin added at run time, and the bodies of the settings operators change.
import { Type } from 'typebox'
import { NullableTimestamp } from '../../http/schemas.ts'
import { EX_ADMIN_ID, EX_TIME, Reason } from './schemas.ts'

export const AdminCoin = Type.Object(
  {
    reference: Type.String(),
    name: Type.String(),
    symbol: Type.String(),
    decimals: Type.Integer(),
    isToken: Type.Boolean(),
    contractAddress: Type.Union([Type.String(), Type.Null()]),
    active: Type.Boolean({ description: 'takes new deposits to wallets, withdrawals and payments' }),
    configuredActive: Type.Boolean({ description: 'as the configuration (COINS_FILE) says' }),
    usdRate: Type.Union([Type.String(), Type.Null()], {
      description:
        'the static USD rate per whole coin in force (an HTTP feed, when configured, gives the rate unless an operator set one); null: none (a coin added without a rate)',
    }),
    configuredUsdRate: Type.Union([Type.String(), Type.Null()], {
      description: 'as the configuration says; null for a coin added at run time',
    }),
    rateSet: Type.Boolean({ description: 'an operator set the USD rate' }),
    halted: Type.Boolean({
      description: 'halted by reconciliation or by hand (see /v1/admin/reconciliation)',
    }),
    updatedBy: Type.Union([Type.String(), Type.Null()], {
      description: "the admin who changed the coin's settings last",
    }),
    updatedAt: NullableTimestamp,
    addedBy: Type.Union([Type.String(), Type.Null()], {
      description: 'the admin who added the coin at run time; null for a coin of the configuration',
    }),
    addedAt: NullableTimestamp,
  },
  {
    $id: 'AdminCoin',
    examples: [
      {
        reference: 'usdc',
        name: 'USD Coin',
        symbol: 'USDC',
        decimals: 6,
        isToken: true,
        contractAddress: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
        active: false,
        configuredActive: true,
        usdRate: '1',
        configuredUsdRate: '1',
        rateSet: false,
        halted: false,
        updatedBy: EX_ADMIN_ID,
        updatedAt: EX_TIME,
        addedBy: null,
        addedAt: null,
      },
    ],
  },
)

const PositiveRate = Type.String({
  pattern: '^[0-9]{1,18}(\\.[0-9]{1,18})?$',
  description: 'USD per whole coin, > 0',
})

export const AddCoinBody = Type.Object(
  {
    reason: Reason,
    symbol: Type.String({
      minLength: 1,
      maxLength: 16,
      pattern: '^[A-Za-z0-9][A-Za-z0-9.]*$',
      description: 'the ticker wallets show, unique among coins in any case (e.g. `DAI`)',
    }),
    reference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 32,
        pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
        description:
          "the coin's key in the API (wallets, rates, transactions), stored in lower case; default: the symbol in lower case",
      }),
    ),
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', description: 'e.g. `Dai Stablecoin`' }),
    contractAddress: Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      description:
        'the ERC-20 contract on the chain (a mixed-case address must carry a valid EIP-55 checksum)',
    }),
    decimals: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 36,
        description: "the token's decimals: must equal what the contract says; default: the contract's",
      }),
    ),
    chain: Type.String({
      pattern: '^[0-9]{1,16}$',
      description: 'the chain id of the configured chain (`GET /v1/payment/rpc`: `rpcChainId`)',
    }),
    icon: Type.Optional(
      Type.String({ maxLength: 500, pattern: '^https?://\\S+$', description: 'image URL clients show' }),
    ),
    rate: Type.Optional(PositiveRate),
    active: Type.Optional(
      Type.Boolean({
        description:
          'take deposits to wallets, withdrawals and payments at once (default false: added inactive, activated later)',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        reason: 'Listing DAI, approved in change 118',
        symbol: 'DAI',
        name: 'Dai Stablecoin',
        contractAddress: '0x6B175474E89094C44Da98b954EedeAC495271d0F',
        decimals: 18,
        chain: '31337',
        rate: '1',
        active: true,
      },
    ],
  },
)

export const RateBody = Type.Object(
  {
    reason: Reason,
    usdRate: Type.Union([PositiveRate, Type.Null()], {
      description: 'a decimal string; `null` goes back to the configured rate or the feed',
    }),
  },
  {
    additionalProperties: false,
    examples: [{ reason: 'Feed outage: price from the issuer', usdRate: '25.40' }],
  },
)
