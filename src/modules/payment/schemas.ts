// Public contract of the payment configuration endpoints: Coin and RPC configuration (SPEC).
import { Type } from 'typebox'
import { Id, Timestamp } from '../../http/schemas.ts'

export const CoinSchema = Type.Object(
  {
    _id: Id(),
    name: Type.String({ description: 'display name' }),
    symbol: Type.String({ description: 'ticker' }),
    reference: Type.String({
      description: 'lowercase slug: the coin key in wallets, rates and transactions',
    }),
    icon: Type.String({ description: 'image URL' }),
    contractAddress: Type.Optional(
      Type.String({ description: 'token contract address; absent for the native coin' }),
    ),
    decimal: Type.String({ description: 'number of decimal places' }),
    isToken: Type.Boolean({ description: 'true for a token, false for the native currency' }),
    rpcChainId: Type.String({ description: 'chain identifier' }),
    active: Type.Boolean(),
    order: Type.Number({ description: 'display order' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    __v: Type.Number(),
  },
  { additionalProperties: false },
)

export const RpcConfigSchema = Type.Object(
  {
    _id: Id(),
    rpcName: Type.String(),
    rpcChainId: Type.String(),
    rpcUrls: Type.Array(Type.String()),
    blockExplorerUrls: Type.Array(Type.String()),
    rpcNativeCurrency: Type.Object({
      name: Type.String(),
      symbol: Type.String(),
      decimals: Type.String(),
    }),
    active: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    __v: Type.Number(),
  },
  {},
)

export const ExchangeRatesSchema = Type.Record(Type.String(), Type.Number(), {
  description: 'USD per whole coin, keyed by coin reference',
})
