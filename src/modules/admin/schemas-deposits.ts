// Admin API resources of the deposit question: one transaction as the chain and the watcher know it,
// and the rescan of one address over a block range.
import { Type } from 'typebox'
import { NullableTimestamp, Timestamp } from '../../http/schemas.ts'
import { Reason } from './schemas.ts'

const Units = (description: string) => Type.String({ pattern: '^[0-9]+$', description })
const Block = (description: string) => Type.String({ pattern: '^[0-9]{1,18}$', description })
const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'an EVM address, any case' })

export const TxHashParams = Type.Object(
  { txHash: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'the transaction hash' }) },
  { additionalProperties: false },
)

export const DepositFinding = Type.Object({
  address: Type.String({ description: 'the custodial address that received value' }),
  ownerKind: Type.String({ description: '`user`, `escrow`, `platform` …' }),
  ownerId: Type.String(),
  email: Type.Union([Type.String(), Type.Null()], {
    description: "the owner's email when a user owns the address",
  }),
  coin: Type.String(),
  decimals: Type.Union([Type.Integer(), Type.Null()]),
  amount: Units('base units'),
  logIndex: Type.Union([Type.Integer(), Type.Null()], { description: 'null for the native coin' }),
  blockNumber: Type.String(),
  state: Type.Union(
    [
      Type.Literal('credited'),
      Type.Literal('parked'),
      Type.Literal('confirming'),
      Type.Literal('replaced'),
      Type.Literal('missed'),
    ],
    {
      description:
        '`credited`: in the owner’s balance; `parked`: recorded while its coin is halted, credited at resume; `confirming`: waiting for confirmations or for the watcher to read its block; `replaced`: recorded from a block a reorganisation replaced; `missed`: the watcher read past it without a credit (re-scan the block range)',
    },
  ),
  explanation: Type.String(),
  transferId: Type.Union([Type.String(), Type.Null()], {
    description: 'the ledger transfer that credited it',
  }),
  creditedAt: NullableTimestamp,
})

export const DepositLookup = Type.Object(
  {
    txHash: Type.String(),
    outcome: Type.Union(
      [Type.Literal('unknown'), Type.Literal('failed'), Type.Literal('not_custodial'), Type.Literal('found')],
      {
        description:
          '`unknown`: no mined transaction has this hash; `failed`: it reverted; `not_custodial`: nothing in it reached a platform address; `found`: see `deposits`',
      },
    ),
    explanation: Type.String({ description: 'what happened, to tell the customer' }),
    blockNumber: Type.Union([Type.String(), Type.Null()]),
    from: Type.Union([Type.String(), Type.Null()]),
    to: Type.Union([Type.String(), Type.Null()], {
      description: 'the transaction’s `to` (a token’s contract)',
    }),
    confirmations: Type.Integer({ minimum: 0 }),
    requiredConfirmations: Type.String({ description: 'CONFIRMATIONS: a number of blocks, or `finalized`' }),
    watcherBlock: Type.Union([Type.String(), Type.Null()], {
      description: 'the newest block the watcher has read',
    }),
    deposits: Type.Array(DepositFinding),
  },
  {
    $id: 'AdminDepositLookup',
    examples: [
      {
        txHash: `0x${'ab'.repeat(32)}`,
        outcome: 'found',
        explanation: 'Credited on 2026-01-01T12:00:00.000Z',
        blockNumber: '1042',
        from: '0x8ba1f109551bd432803012645ac136ddd64dba72',
        to: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
        confirmations: 14,
        requiredConfirmations: '1',
        watcherBlock: '1055',
        deposits: [
          {
            address: '0x71be63f3384f5fb98995898a86b02fb2426c5788',
            ownerKind: 'user',
            ownerId: '65f1c0a2b3c4d5e6f7a8b9c7',
            email: 'ada@example.com',
            coin: 'usdc',
            decimals: 6,
            amount: '25000000',
            logIndex: 0,
            blockNumber: '1042',
            state: 'credited',
            explanation: 'Credited on 2026-01-01T12:00:00.000Z',
            transferId: '65f1c0a2b3c4d5e6f7a8b9d1',
            creditedAt: '2026-01-01T12:00:00.000Z',
          },
        ],
      },
    ],
  },
)

export const RescanBody = Type.Object(
  {
    address: Address,
    coin: Type.String({ minLength: 1, maxLength: 32, description: 'the coin reference, e.g. `usdc`' }),
    fromBlock: Block('first block to read'),
    toBlock: Block('last block to read (at most the newest block the watcher has read)'),
    reason: Reason,
  },
  {
    additionalProperties: false,
    examples: [
      {
        address: '0x71be63f3384f5fb98995898a86b02fb2426c5788',
        coin: 'usdc',
        fromBlock: '1040',
        toBlock: '1045',
        reason: 'Support ticket 5120: deposit not credited',
      },
    ],
  },
)

export const RescanQueued = Type.Object(
  {
    jobId: Type.String(),
    address: Type.String(),
    coin: Type.String(),
    fromBlock: Type.String(),
    toBlock: Type.String(),
    queuedAt: Timestamp,
  },
  {
    examples: [
      {
        jobId: '65f1c0a2b3c4d5e6f7a8b9e2',
        address: '0x71be63f3384f5fb98995898a86b02fb2426c5788',
        coin: 'usdc',
        fromBlock: '1040',
        toBlock: '1045',
        queuedAt: '2026-01-01T12:00:00.000Z',
      },
    ],
  },
)
