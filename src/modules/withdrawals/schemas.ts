// The withdrawals contract (the Withdrawal resource, #22, #23).
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
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
  {
    additionalProperties: false,
    examples: [{ amount: 0.5, coin: 'avax', address: EX.outsideAddress, password: EX.password }],
  },
)

export const CreateWithdrawalData = Type.Object(
  { withdrawalId: Type.String({ description: 'the new withdrawal; follow it with GET /v1/withdrawals/' }) },
  { examples: [{ withdrawalId: EX.withdrawalId }] },
)

export const Withdrawal = Type.Object(
  {
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
  },
  {
    $id: 'Withdrawal',
    description: 'A transfer from the caller’s wallet to an outside address.',
    examples: [
      {
        _id: EX.withdrawalId,
        owner: EX.userId,
        coin: 'avax',
        address: EX.outsideAddress,
        amount: 0.5,
        fee: 0.001,
        usdValue: 12.5,
        usdRate: 25,
        status: 'completed',
        retryCount: 0,
        errMsg: [],
        txHash: EX.txHash,
        createdAt: EX.created,
        updatedAt: EX.later,
        __v: 2,
      },
    ],
  },
)

export const WithdrawalList = Type.Object(
  {
    pages: Type.Number({ examples: [1] }),
    page: Type.Number({ examples: [1] }),
    limit: Type.Number({ examples: [12] }),
    total: Type.Number({ examples: [1] }),
    data: Type.Array(Withdrawal),
  },
  { $id: 'WithdrawalPage' },
)

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
