// Admin API resources of restores: unknown platform transfers (the platform's own transactions a
// restored database did not know) and the jobs a restore parked for review.
import { Type } from 'typebox'
import { NullableTimestamp, PaginationQuery, Timestamp } from '../../http/schemas.ts'
import { Page, Reason } from '../admin/types.ts'

const Units = (description: string) => Type.String({ pattern: '^[0-9]+$', description })
const Address = Type.String({ pattern: '^0x[0-9a-f]{40}$' })

export const PlatformTransferStatus = Type.Union(
  [Type.Literal('open'), Type.Literal('reattached'), Type.Literal('external'), Type.Literal('lost')],
  {
    description:
      '`open`: its coins are halted and its movements parked until an operator decides; `reattached`: settled as what it paid (a withdrawal recreated or one the copy had open, an escrow leg, a fee sweep of the copy or recreated); `external`: judged signed outside the platform, booked as an outside withdrawal once its coins resume; `lost`: an escrow’s or the fee address’s transaction no open record matched, its value booked out of the owner’s account as a loss',
  },
)

const RecordKind = Type.Union(
  [Type.Literal('withdrawal'), Type.Literal('escrowLeg'), Type.Literal('feeSweep')],
  { description: 'a user’s withdrawal, an escrow’s leg, or a fee sweep' },
)

const Candidate = Type.Object(
  {
    kind: Type.Union([Type.Literal('escrowLeg'), Type.Literal('feeSweep')]),
    id: Type.String({ description: 'the leg’s or the sweep’s id (`legId` / `sweepId` of a re-attach)' }),
    what: Type.String({
      description: 'the leg’s kind (`payout`, `fee`, `platformFee`, `refund`, `fund`) or `sweep`',
    }),
    to: Address,
    amount: Units('what it pays, base units'),
    transferId: Type.String({ description: 'its outgoing transfer, open in this database' }),
    transferStatus: Type.String({ description: '`queued` unless this database signed it too' }),
  },
  { description: 'an open record of this database that pays the transaction’s destination its amount' },
)

export const PlatformTransfer = Type.Object(
  {
    _id: Type.String(),
    chainId: Type.String(),
    txHash: Type.String(),
    address: Type.String({
      description: 'the custodial address that signed it (its key was never exported)',
    }),
    ownerKind: Type.String({ description: '`user`, `escrow` or `treasury`' }),
    ownerId: Type.String(),
    coin: Type.String({ description: 'the coin of the value it moved' }),
    decimals: Type.Union([Type.Integer(), Type.Null()]),
    amount: Units('the value it moved, base units (0 when it moved none)'),
    to: Type.Union([Address, Type.Null()], { description: 'where the value went' }),
    gasCoin: Type.Union([Type.String(), Type.Null()]),
    gasFee: Units('the gas it paid, base units of the gas coin'),
    blockNumber: Type.String(),
    status: PlatformTransferStatus,
    withdrawalId: Type.Union([Type.String(), Type.Null()], {
      description: 'the withdrawal it was re-attached to',
    }),
    transferId: Type.Union([Type.String(), Type.Null()], { description: 'its outgoing transfer' }),
    record: Type.Union([Type.Object({ kind: RecordKind, id: Type.String() }), Type.Null()], {
      description: 'what it was re-attached to',
    }),
    candidates: Type.Array(Candidate, {
      description:
        'an escrow’s or the fee address’s open finding: the open legs or sweeps of this database it may have paid; several are the operator’s choice, none with nothing to recreate is booked as a loss',
    }),
    detectedAt: Timestamp,
    resolvedAt: NullableTimestamp,
    resolvedBy: Type.Union([Type.String(), Type.Null()]),
    resolveReason: Type.Union([Type.String(), Type.Null()]),
    prefill: Type.Object(
      {
        ownerId: Type.String({
          description: 'the account the withdrawal is recreated for (the address’s owner)',
        }),
        to: Type.Union([Address, Type.Null()]),
        amount: Units('the withdrawal’s amount'),
        fee: Type.Union([Units('the coin’s withdrawal fee now'), Type.Null()]),
        recreates: Type.Union([Type.Literal('withdrawal'), Type.Literal('feeSweep'), Type.Null()], {
          description:
            'what a re-attach naming nothing recreates: the user’s withdrawal, or the fee sweep to the coin’s cold address when the copy has none open; null: it settles the one candidate',
        }),
      },
      { description: 'what a re-attach without a record named records' },
    ),
    actions: Type.Object({ reattach: Type.Boolean(), external: Type.Boolean(), loss: Type.Boolean() }),
  },
  {
    $id: 'AdminPlatformTransfer',
    examples: [
      {
        _id: '65f1c0a2b3c4d5e6f7a8b9e1',
        chainId: '31337',
        txHash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
        address: '0x8ba1f109551bd432803012645ac136ddd64dba72',
        ownerKind: 'user',
        ownerId: '65f1c0a2b3c4d5e6f7a8b9c7',
        coin: 'avax',
        decimals: 18,
        amount: '250000000000000000',
        to: '0x1111111111111111111111111111111111111111',
        gasCoin: 'avax',
        gasFee: '21000000000000',
        blockNumber: '1042',
        status: 'open',
        withdrawalId: null,
        transferId: null,
        record: null,
        candidates: [],
        detectedAt: '2026-01-01T12:00:00.000Z',
        resolvedAt: null,
        resolvedBy: null,
        resolveReason: null,
        prefill: {
          ownerId: '65f1c0a2b3c4d5e6f7a8b9c7',
          to: '0x1111111111111111111111111111111111111111',
          amount: '250000000000000000',
          fee: '1000000000000000',
          recreates: 'withdrawal',
        },
        actions: { reattach: true, external: true, loss: false },
      },
    ],
  },
)

export const PlatformTransferPage = Page(PlatformTransfer, 'AdminPlatformTransferPage')

export const PlatformTransferQuery = Type.Object(
  { ...PaginationQuery, status: Type.Optional(PlatformTransferStatus) },
  { additionalProperties: false },
)

export const ReattachBody = Type.Object(
  {
    reason: Reason,
    withdrawalId: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{24}$',
        description:
          'an open withdrawal of the restored database this transaction paid; absent: it is recreated',
      }),
    ),
    legId: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{24}$',
        description:
          'an escrow’s transaction: the open leg it paid, one of the finding’s `candidates` (needed when there are several)',
      }),
    ),
    sweepId: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{24}$',
        description:
          'the fee address’s transaction: the open sweep it paid, one of the finding’s `candidates`; absent with none open: the sweep is recreated',
      }),
    ),
    fee: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,40}$',
        description:
          'the withdrawal fee the user was charged, base units (a recreated withdrawal); default the coin’s fee',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { reason: 'Restore of 2026-01-01: withdrawal signed after the backup', fee: '1000000000000000' },
    ],
  },
)

export const ParkedJob = Type.Object(
  {
    _id: Type.String(),
    kind: Type.String({
      description:
        '`mail.send`, `notifications.email`, `webhooks.deliver`, `outgoing.send`, `outgoing.topup`, `files.delete-object`',
    }),
    attempts: Type.Integer(),
    runAt: Timestamp,
    createdAt: Timestamp,
    about: Type.Record(Type.String(), Type.Unknown(), {
      description: 'what the job is about (ids, the recipient and subject of a mail; never a body)',
    }),
  },
  {
    $id: 'AdminParkedJob',
    examples: [
      {
        _id: '65f1c0a2b3c4d5e6f7a8b9e2',
        kind: 'mail.send',
        attempts: 0,
        runAt: '2026-01-01T12:00:00.000Z',
        createdAt: '2026-01-01T12:00:00.000Z',
        about: { to: 'ada@example.com', subject: 'Your withdrawal was sent', kind: 'withdrawal_completed' },
      },
    ],
  },
)

export const ParkedJobPage = Page(ParkedJob, 'AdminParkedJobPage')

export const ParkedJobQuery = Type.Object(
  { ...PaginationQuery, kind: Type.Optional(Type.String({ maxLength: 100 })) },
  { additionalProperties: false },
)
