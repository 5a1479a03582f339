// Admin API resources about coins: each configured coin with its state and USD rate, and the
// bodies of the settings operators change at run time.
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
    usdRate: Type.String({
      description:
        'the static USD rate per whole coin in force (an HTTP feed, when configured, gives the rate unless an operator set one)',
    }),
    configuredUsdRate: Type.String(),
    rateSet: Type.Boolean({ description: 'an operator set the USD rate' }),
    halted: Type.Boolean({
      description: 'halted by reconciliation or by hand (see /v1/admin/reconciliation)',
    }),
    updatedBy: Type.Union([Type.String(), Type.Null()], {
      description: "the admin who changed the coin's settings last",
    }),
    updatedAt: NullableTimestamp,
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
      },
    ],
  },
)

export const RateBody = Type.Object(
  {
    reason: Reason,
    usdRate: Type.Union(
      [
        Type.String({ pattern: '^[0-9]{1,18}(\\.[0-9]{1,18})?$', description: 'USD per whole coin, > 0' }),
        Type.Null(),
      ],
      { description: 'a decimal string; `null` goes back to the configured rate or the feed' },
    ),
  },
  {
    additionalProperties: false,
    examples: [{ reason: 'Feed outage: price from the issuer', usdRate: '25.40' }],
  },
)
