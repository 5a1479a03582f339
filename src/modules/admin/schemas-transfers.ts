// Admin API resources about money on its way out: outgoing transfers (with their attempts, signed
// transactions, postings and reported events), withdrawals and escrow payout legs.
import { Type } from 'typebox'
import { Id, NullableTimestamp, PaginationQuery, Str, Timestamp } from '../../http/schemas.ts'
import { CreatedRange, EX_ADMIN_ID, EX_TIME } from './schemas.ts'

const Units = (description: string) => Type.String({ pattern: '^[0-9]+$', description })
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()])
const Age = Type.Integer({ description: 'seconds since the record was created' })

export const TransferActions = Type.Object(
  {
    retry: Type.Boolean({ description: 'not settled: it can be run now' }),
    replace: Type.Boolean({
      description: 'signed: its pending transaction can be replaced with higher fees',
    }),
    cancel: Type.Boolean({ description: 'never signed: it can be cancelled and its caller refunded' }),
  },
  { description: 'the operator actions the transfer allows now' },
)

const transferFields = {
  _id: Type.String(),
  purpose: Type.String({ description: '`withdrawal`, `escrow.leg`, `escrow.pay`, `gas.topup`, `fee.sweep`' }),
  referenceId: Type.String({ description: "the caller's record: withdrawal id, escrow leg id, ..." }),
  coin: Type.String(),
  from: Type.String(),
  to: Type.String(),
  amount: Units('base units'),
  amountText: Type.String({ description: 'the amount in coin units with its symbol' }),
  status: Type.Union(
    ['queued', 'signed', 'sent', 'completed', 'failed'].map((s) => Type.Literal(s)),
    { description: 'queued (not signed) → signed (stored) → sent (broadcast) → completed | failed' },
  ),
  failures: Type.Integer({
    description:
      'failed attempts counted toward the limit (5) that fails the transfer for good: refusals by the node; a provider’s transient errors (unreachable, 5xx, 429, a lagging node) are not counted',
  }),
  attempts: Type.Integer({ description: 'failed attempts recorded so far, transient ones included' }),
  lastError: Nullable(Type.String()),
  nonce: Type.Union([Type.Integer(), Type.Null()]),
  txHash: Nullable(Type.String({ description: 'the current (or mined) transaction' })),
  replacements: Type.Integer({
    description: 'signed transactions beyond the first (same nonce, higher fees)',
  }),
  ageSeconds: Age,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  signedAt: NullableTimestamp,
  broadcastAt: NullableTimestamp,
  settledAt: NullableTimestamp,
  waitingForFee: Type.Union(
    [
      Type.Object({
        since: Type.String({ format: 'date-time', description: 'when it started waiting' }),
        feePerGas: Units('what the network asks per gas now (next base fee + tip), in wei'),
        maxFeePerGas: Units(
          "the coin's maximum per gas (maxFeePerGasGwei in the coins configuration), in wei",
        ),
        step: Type.Union([Type.Literal('sign'), Type.Literal('replace')], {
          description:
            '`sign`: not signed until the fee falls; `replace`: its pending transaction is not replaced above the maximum (it is broadcast again until mined)',
        }),
      }),
      Type.Null(),
    ],
    {
      description:
        "set while the transfer waits because the network asks more per gas than its coin's maximum; null otherwise",
    },
  ),
  actions: TransferActions,
}

const EX_TRANSFER = {
  _id: '65f1c0a2b3c4d5e6f7a8b9d1',
  purpose: 'withdrawal',
  referenceId: '65f1c0a2b3c4d5e6f7a8b9d2',
  coin: 'avax',
  from: '0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c',
  to: '0x8ba1f109551bd432803012645ac136ddd64dba72',
  amount: '500000000000000000',
  amountText: '0.5 AVAX',
  status: 'sent',
  failures: 0,
  attempts: 0,
  lastError: null,
  nonce: 4,
  txHash: '0x9fc76417374aa880d4449a1f7f31ec597f00b1f6f3dd2d66f4c9c6c445836d8b',
  replacements: 0,
  ageSeconds: 420,
  createdAt: EX_TIME,
  updatedAt: EX_TIME,
  signedAt: EX_TIME,
  broadcastAt: EX_TIME,
  settledAt: null,
  waitingForFee: null,
  actions: { retry: true, replace: true, cancel: false },
}

export const AdminTransfer = Type.Object(transferFields, { $id: 'AdminTransfer', examples: [EX_TRANSFER] })

export const AdminTransferDetail = Type.Object(
  {
    ...transferFields,
    errors: Type.Array(Type.String(), { description: 'every failed attempt, first first' }),
    error: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description: 'the outcome of a failed transfer',
    }),
    meta: Type.Record(Type.String(), Type.Unknown()),
    gasReserved: Units('native base units reserved for its gas'),
    transactions: Type.Array(
      Type.Object({
        seq: Type.Integer({ description: '0: the first; 1…: replacements' }),
        txHash: Type.String(),
        status: Type.Union([Type.Literal('pending'), Type.Literal('mined'), Type.Literal('replaced')]),
        maxFee: Units('the most its gas can cost (native base units)'),
        signedAt: Timestamp,
      }),
    ),
    postings: Type.Array(
      Type.Object({
        outcome: Type.Union([Type.Literal('completed'), Type.Literal('failed')]),
        kind: Type.String(),
        key: Type.String({ description: 'the ledger idempotency key' }),
        account: Type.String({ description: 'the credited ledger account: kind:owner' }),
        amount: Units('base units'),
        ledgerTransferId: Nullable(Type.String({ description: 'set once booked' })),
      }),
      {
        description:
          'history only: postings that transfers made before reservations were ledger holds booked with their outcome (a withdrawal fee); empty for newer transfers, whose reservations are holds posted or voided',
      },
    ),
    events: Type.Array(Type.Object({ event: Type.String(), appliedAt: Timestamp }), {
      description: "reports applied to the caller's records (`started`, `attempt:n`, `outcome`)",
    }),
  },
  {
    $id: 'AdminTransferDetail',
    examples: [
      {
        ...EX_TRANSFER,
        errors: [],
        error: null,
        meta: {},
        gasReserved: '52500000000000',
        transactions: [
          {
            seq: 0,
            txHash: EX_TRANSFER.txHash,
            status: 'pending',
            maxFee: '52500000000000',
            signedAt: EX_TIME,
          },
        ],
        postings: [
          {
            outcome: 'failed',
            kind: 'withdrawal.release',
            key: 'withdrawal:65f1c0a2b3c4d5e6f7a8b9d2:release',
            account: `user:${EX_ADMIN_ID}`,
            amount: '501000000000000000',
            ledgerTransferId: null,
          },
        ],
        events: [{ event: 'started', appliedAt: EX_TIME }],
      },
    ],
  },
)

export const TransferQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(
      Type.Union(
        ['queued', 'signed', 'sent', 'completed', 'failed', 'open', 'failing'].map((s) => Type.Literal(s)),
        { description: 'a status, `open` (not settled) or `failing` (not settled, with failed attempts)' },
      ),
    ),
    coin: Type.Optional(Str(40, { minLength: 1 })),
    purpose: Type.Optional(Str(40, { minLength: 1 })),
    referenceId: Type.Optional(Str(100, { minLength: 1 })),
    ...CreatedRange,
    order: Type.Optional(
      Type.Union([Type.Literal('newest'), Type.Literal('oldest')], {
        description: '`newest` first (default: new activity on the first page) or `oldest` first (a queue)',
      }),
    ),
  },
  { additionalProperties: false },
)

export const AdminWithdrawal = Type.Object(
  {
    _id: Type.String(),
    userId: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    userName: Type.Union([Type.String(), Type.Null()]),
    coin: Type.String(),
    address: Type.String(),
    amount: Units('base units sent'),
    fee: Units('base units of network fee charged'),
    amountText: Type.String(),
    status: Type.Union(['pending', 'processing', 'completed', 'failed'].map((s) => Type.Literal(s))),
    retryCount: Type.Integer(),
    lastError: Type.Union([Type.String(), Type.Null()]),
    txHash: Type.Union([Type.String(), Type.Null()]),
    transferId: Type.Union([Type.String(), Type.Null()]),
    transferStatus: Type.Union([Type.String(), Type.Null()]),
    ageSeconds: Age,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    actions: TransferActions,
  },
  {
    $id: 'AdminWithdrawal',
    examples: [
      {
        _id: '65f1c0a2b3c4d5e6f7a8b9d2',
        userId: EX_ADMIN_ID,
        email: 'ada@example.com',
        userName: 'ada',
        coin: 'avax',
        address: '0x8ba1f109551bd432803012645ac136ddd64dba72',
        amount: '500000000000000000',
        fee: '1000000000000000',
        amountText: '0.5 AVAX',
        status: 'processing',
        retryCount: 1,
        lastError: 'devnet is down (simulated outage)',
        txHash: null,
        transferId: '65f1c0a2b3c4d5e6f7a8b9d1',
        transferStatus: 'queued',
        ageSeconds: 95,
        createdAt: EX_TIME,
        updatedAt: EX_TIME,
        actions: { retry: true, replace: false, cancel: true },
      },
    ],
  },
)

export const WithdrawalQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(
      Type.Union(
        ['pending', 'processing', 'completed', 'failed', 'failing'].map((s) => Type.Literal(s)),
        {
          description: 'a status, or `failing` (not settled, with failed attempts)',
        },
      ),
    ),
    coin: Type.Optional(Str(40, { minLength: 1 })),
    user: Type.Optional(Id('the requesting account')),
    ...CreatedRange,
    order: Type.Optional(
      Type.Union([Type.Literal('oldest'), Type.Literal('newest')], {
        description: '`oldest` first (default: a queue) or `newest` first (a user’s latest)',
      }),
    ),
  },
  { additionalProperties: false },
)

export const AdminEscrowLeg = Type.Object(
  {
    _id: Type.String(),
    escrowId: Type.String(),
    collectionId: Type.String(),
    kind: Type.String({ description: '`payout`, `fee`, `platformFee`, `refund` or `fund`' }),
    seq: Type.Integer(),
    coin: Type.String(),
    to: Type.String(),
    amount: Units('base units'),
    amountText: Type.String(),
    status: Type.Union(['awaiting', 'processing', 'completed', 'failed'].map((s) => Type.Literal(s))),
    attempt: Type.Integer({ description: 'transfers made for this leg (a failed leg sent again adds one)' }),
    failures: Type.Integer(),
    lastError: Type.Union([Type.String(), Type.Null()]),
    txHash: Type.Union([Type.String(), Type.Null()]),
    transferId: Type.Union([Type.String(), Type.Null()]),
    transferStatus: Type.Union([Type.String(), Type.Null()]),
    payerId: Type.String(),
    receiverId: Type.Union([Type.String(), Type.Null()]),
    receiverEmail: Type.Union([Type.String(), Type.Null()]),
    ageSeconds: Age,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    actions: TransferActions,
  },
  {
    $id: 'AdminEscrowLeg',
    examples: [
      {
        _id: '65f1c0a2b3c4d5e6f7a8b9d3',
        escrowId: '65f1c0a2b3c4d5e6f7a8b9d4',
        collectionId: '65f1c0a2b3c4d5e6f7a8b9d5',
        kind: 'payout',
        seq: 1,
        coin: 'usdc',
        to: '0x8ba1f109551bd432803012645ac136ddd64dba72',
        amount: '95000000',
        amountText: '95 USDC',
        status: 'failed',
        attempt: 1,
        failures: 5,
        lastError: 'the transaction was mined but reverted',
        txHash: null,
        transferId: '65f1c0a2b3c4d5e6f7a8b9d1',
        transferStatus: 'failed',
        payerId: EX_ADMIN_ID,
        receiverId: '65f1c0a2b3c4d5e6f7a8b9c1',
        receiverEmail: 'bob@example.com',
        ageSeconds: 3600,
        createdAt: EX_TIME,
        updatedAt: EX_TIME,
        actions: { retry: true, replace: false, cancel: false },
      },
    ],
  },
)

export const LegQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(
      Type.Union(
        ['awaiting', 'processing', 'completed', 'failed', 'failing'].map((s) => Type.Literal(s)),
        {
          description: 'a status, or `failing` (not settled, with failed attempts)',
        },
      ),
    ),
    kind: Type.Optional(
      Type.Union(['payout', 'fee', 'platformFee', 'refund', 'fund'].map((s) => Type.Literal(s))),
    ),
    coin: Type.Optional(Str(40, { minLength: 1 })),
    escrow: Type.Optional(Id('the escrow')),
    ...CreatedRange,
  },
  { additionalProperties: false },
)

export const ReplaceResult = Type.Object(
  { transfer: AdminTransfer, txHash: Type.String({ description: 'the replacement transaction' }) },
  { $id: 'AdminTransferReplaced' },
)
