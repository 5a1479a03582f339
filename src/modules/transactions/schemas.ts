// The transactions contract (SPEC "Transaction", #24, #25).
import { Type } from 'typebox'
import { PaginationQuery, Str, Timestamp } from '../../http/schemas.ts'

export const TRANSACTION_TYPES = ['deposit', 'withdrawal'] as const
export const TRANSACTION_STATUSES = ['pending', 'completed', 'failed', 'cancelled'] as const

/** A coin as embedded in a transaction (SPEC "Coin", with `order`). */
export const EmbeddedCoin = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  symbol: Type.String(),
  reference: Type.String(),
  icon: Type.String(),
  contractAddress: Type.Optional(Type.String({ description: 'absent for the native coin' })),
  decimal: Type.String(),
  isToken: Type.Boolean(),
  rpcChainId: Type.String(),
  active: Type.Boolean(),
  order: Type.Number(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  __v: Type.Number(),
})

export const Transaction = Type.Object({
  _id: Type.String(),
  owner: Type.String({ description: 'user id' }),
  amount: Type.Number({ description: "in the coin's units" }),
  coin: EmbeddedCoin,
  chain: Type.String({ description: 'chain record id (GET /v1/payment/rpc `_id`)' }),
  currency: Type.String({ description: 'lowercase coin reference' }),
  usdValue: Type.Number({ description: 'USD value at transaction time, in dollars rounded to cents' }),
  rate: Type.String({ description: 'USD per whole coin at transaction time' }),
  description: Type.String(),
  tx: Type.Optional(Type.String({ description: 'JSON text: senderAddress, receiverAddress, asset, amount' })),
  type: Type.Union(TRANSACTION_TYPES.map((t) => Type.Literal(t))),
  method: Type.String({ description: 'payout, sent, transfer, exchange, ...' }),
  status: Type.Union(TRANSACTION_STATUSES.map((s) => Type.Literal(s))),
  isFee: Type.Boolean(),
  isPlatformFee: Type.Boolean(),
  isExternal: Type.Optional(Type.Boolean()),
  responseData: Type.String({
    description: 'JSON text of the blockchain result (hash, block, gas, logs) or of an error; may be empty',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  __v: Type.Number(),
})

export const TransactionListQuery = Type.Object(
  {
    ...PaginationQuery,
    type: Type.Optional(Type.Union(TRANSACTION_TYPES.map((t) => Type.Literal(t)))),
    status: Type.Optional(Type.Union(TRANSACTION_STATUSES.map((s) => Type.Literal(s)))),
    coin: Type.Optional(Str(40, { description: 'coin reference' })),
  },
  { additionalProperties: false },
)

export const TransactionList = Type.Object({
  transactions: Type.Array(Transaction),
  pages: Type.Integer(),
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
})
