// The transactions contract (the Transaction resource, #24, #25).
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { PaginationQuery, Str, Timestamp } from '../../http/schemas.ts'
import { AVAX_COIN, CoinSchema } from '../payment/types.ts'

export const TRANSACTION_TYPES = ['deposit', 'withdrawal'] as const
export const TRANSACTION_STATUSES = ['pending', 'completed', 'failed', 'cancelled'] as const

const TRANSACTION = {
  _id: EX.transactionId,
  owner: EX.userId,
  amount: 0.5,
  coin: AVAX_COIN,
  chain: EX.chainId,
  currency: 'avax',
  usdValue: 12.5,
  rate: '25',
  description: `Withdrawal of 0.5 AVAX to ${EX.outsideAddress}`,
  tx: JSON.stringify({
    asset: 'AVAX',
    amount: '0.5',
    senderAddress: EX.walletAddress,
    receiverAddress: EX.outsideAddress,
  }),
  type: 'withdrawal',
  method: 'sent',
  status: 'completed',
  isFee: false,
  isPlatformFee: false,
  responseData: JSON.stringify({
    transactionHash: EX.txHash,
    blockNumber: '5',
    from: EX.walletAddress.toLowerCase(),
    to: EX.outsideAddress.toLowerCase(),
    status: 'success',
    gasUsed: '21000',
  }),
  createdAt: EX.created,
  updatedAt: EX.later,
  __v: 1,
}

export const Transaction = Type.Object(
  {
    _id: Type.String(),
    owner: Type.String({ description: 'user id' }),
    amount: Type.Number({ description: "in the coin's units" }),
    coin: CoinSchema,
    chain: Type.String({ description: 'chain record id (GET /v1/payment/rpc `_id`)' }),
    currency: Type.String({ description: 'lowercase coin reference' }),
    usdValue: Type.Number({ description: 'USD value at transaction time, in dollars rounded to cents' }),
    rate: Type.String({ description: 'USD per whole coin at transaction time' }),
    description: Type.String(),
    tx: Type.Optional(
      Type.String({ description: 'JSON text: senderAddress, receiverAddress, asset, amount' }),
    ),
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
  },
  {
    $id: 'Transaction',
    description: 'A movement of value on the caller’s wallet: a deposit, a withdrawal, a payout or a fee.',
    examples: [TRANSACTION],
  },
)

export const TransactionListQuery = Type.Object(
  {
    ...PaginationQuery,
    type: Type.Optional(Type.Union(TRANSACTION_TYPES.map((t) => Type.Literal(t)))),
    status: Type.Optional(Type.Union(TRANSACTION_STATUSES.map((s) => Type.Literal(s)))),
    coin: Type.Optional(Str(40, { description: 'coin reference' })),
  },
  { additionalProperties: false },
)

export const TransactionList = Type.Object(
  {
    transactions: Type.Array(Transaction),
    pages: Type.Integer({ examples: [1] }),
    page: Type.Integer({ examples: [1] }),
    limit: Type.Integer({ examples: [12] }),
    total: Type.Integer({ examples: [1] }),
  },
  { $id: 'TransactionPage' },
)
