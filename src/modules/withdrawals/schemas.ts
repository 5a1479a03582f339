// The withdrawals contract (SPEC "Withdrawal", #22, #23).
import { Type } from 'typebox'
import { Id, PaginationQuery, Str, Timestamp } from '../../http/schemas.ts'

export const WITHDRAWAL_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const

export const CreateWithdrawalBody = Type.Object(
  {
    amount: Type.Number({
      exclusiveMinimum: 0,
      description:
        "whole coins; at most the coin's decimals, at least the coin's network fee (0.001 for the native coin, 0.1 for tokens)",
    }),
    coin: Str(40, { minLength: 1, description: 'an active coin reference (GET /v1/payment/coins)' }),
    address: Str(100, {
      minLength: 1,
      description: 'destination EVM address; a mixed-case address must carry a valid EIP-55 checksum',
    }),
    password: Type.String({ minLength: 1, maxLength: 128, description: 'the account password' }),
    code: Type.Optional(
      Type.String({
        maxLength: 10,
        description:
          'required when two-factor is on: the authenticator code (google_auth) or the code mailed by POST /v1/account/2fa/email',
      }),
    ),
  },
  { additionalProperties: false },
)

export const CreateWithdrawalData = Type.Object({ withdrawalId: Type.String() })

export const Withdrawal = Type.Object({
  _id: Type.String(),
  owner: Type.String({ description: 'user id' }),
  coin: Type.String({ description: 'coin reference' }),
  address: Type.String({ description: 'destination address (EIP-55)' }),
  amount: Type.Number({ description: 'whole coins sent (the fee is separate)' }),
  fee: Type.Number({ description: 'network fee charged, whole coins' }),
  usdValue: Type.Number({ description: 'USD value of the amount at request time' }),
  usdRate: Type.Number({ description: 'USD per whole coin at request time' }),
  status: Type.Union(WITHDRAWAL_STATUSES.map((s) => Type.Literal(s))),
  retryCount: Type.Number({ description: 'failed send attempts so far' }),
  errMsg: Type.Array(Type.String(), { description: 'one message per failed attempt' }),
  txHash: Type.Union([Type.String(), Type.Null()], { description: 'chain transaction hash once sent' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  __v: Type.Number(),
})

export const WithdrawalList = Type.Object({
  pages: Type.Number(),
  page: Type.Number(),
  limit: Type.Number(),
  total: Type.Number(),
  data: Type.Array(Withdrawal),
})

export const WithdrawalListQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(Type.Union(WITHDRAWAL_STATUSES.map((s) => Type.Literal(s)))),
    coin: Type.Optional(Str(40, { description: 'coin reference' })),
    owner: Type.Optional(
      Id('the caller’s own user id (as the public SDK sends it); any other id is 403 FORBIDDEN'),
    ),
  },
  { additionalProperties: false },
)
