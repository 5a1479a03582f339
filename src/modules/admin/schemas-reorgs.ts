// Admin API resources of deep chain reorganisations: the deposits a reorganisation took back
// (findings), with what is held, what was already spent, and how an operator resolved each.
import { Type } from 'typebox'
import { NullableTimestamp, PaginationQuery, Timestamp } from '../../http/schemas.ts'
import { Page } from './schemas.ts'

const Units = (description: string) => Type.String({ pattern: '^[0-9]+$', description })

export const ReorgStatus = Type.Union(
  [Type.Literal('open'), Type.Literal('reversed'), Type.Literal('kept'), Type.Literal('dropped')],
  {
    description:
      '`open`: the value is held until an operator reverses or keeps it; `reversed`: compensating ledger entries took the credit back; `kept`: the deposit was on the canonical chain again and the hold was released; `dropped`: a deposit parked while its coin was halted (never credited), taken out of the parking',
  },
)

export const ReorgFinding = Type.Object(
  {
    _id: Type.String(),
    chainId: Type.String(),
    txHash: Type.String(),
    logIndex: Type.Integer({ description: '-1 for the native coin' }),
    address: Type.String({ description: 'the custodial address the deposit paid' }),
    ownerKind: Type.String({ description: '`user`, `escrow` or `treasury`' }),
    ownerId: Type.String(),
    coin: Type.String(),
    decimals: Type.Union([Type.Integer(), Type.Null()]),
    amount: Units('the deposit, base units'),
    held: Units('base units put on hold on the credited account when the finding was made'),
    shortfall: Units(
      'base units already spent when found (reversed: what the platform loss account bore in the end)',
    ),
    blockNumber: Type.String({ description: 'the block the deposit had been credited from' }),
    blockHash: Type.String(),
    credited: Type.Boolean(),
    creditTransferId: Type.Union([Type.String(), Type.Null()]),
    holdId: Type.Union([Type.String(), Type.Null()]),
    status: ReorgStatus,
    detectedAt: Timestamp,
    resolvedAt: NullableTimestamp,
    resolvedBy: Type.Union([Type.String(), Type.Null()], { description: 'the admin id, or `system`' }),
    resolveReason: Type.Union([Type.String(), Type.Null()]),
    reversalTransferId: Type.Union([Type.String(), Type.Null()]),
    lossTransferId: Type.Union([Type.String(), Type.Null()]),
    actions: Type.Object({ reverse: Type.Boolean(), keep: Type.Boolean() }),
  },
  {
    $id: 'AdminReorgFinding',
    examples: [
      {
        _id: '65f1c0a2b3c4d5e6f7a8b9a1',
        chainId: '31337',
        txHash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
        logIndex: -1,
        address: '0x8ba1f109551bd432803012645ac136ddd64dba72',
        ownerKind: 'user',
        ownerId: '65f1c0a2b3c4d5e6f7a8b9c7',
        coin: 'avax',
        decimals: 18,
        amount: '2000000000000000000',
        held: '500000000000000000',
        shortfall: '1500000000000000000',
        blockNumber: '1042',
        blockHash: '0x9f2c5e0a1b7d4c3e8f6a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e',
        credited: true,
        creditTransferId: '65f1c0a2b3c4d5e6f7a8b9a2',
        holdId: '65f1c0a2b3c4d5e6f7a8b9a3',
        status: 'open',
        detectedAt: '2026-01-01T12:00:00.000Z',
        resolvedAt: null,
        resolvedBy: null,
        resolveReason: null,
        reversalTransferId: null,
        lossTransferId: null,
        actions: { reverse: true, keep: true },
      },
    ],
  },
)

export const ReorgPage = Page(ReorgFinding, 'AdminReorgPage')

export const ReorgQuery = Type.Object(
  { ...PaginationQuery, status: Type.Optional(ReorgStatus) },
  { additionalProperties: false },
)
