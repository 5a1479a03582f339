// The detail pages of the operator console: a user with their money and activity, an escrow with its legs, a job, a dispute,
// and the chain's explorer link.
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { NullableTimestamp, Timestamp } from '../../http/schemas.ts'
import { ChatMessage } from '../chat/types.ts'
import { FileSummary } from '../files/types.ts'
import { DISPUTE, DISPUTE_ID, Dispute } from '../work/types.ts'
import { AdminUser } from './schemas.ts'
import { EX_HASH } from './schemas-search.ts'
import { AdminEscrowLeg } from './schemas-transfers.ts'

const Units = (description: string) => Type.String({ pattern: '^[0-9]+$', description })
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T, description?: string) =>
  Type.Union([t, Type.Null()], description ? { description } : {})
const first = (schema: object) => (schema as { examples: Record<string, unknown>[] }).examples[0]!

// The detail pages tell the story of the public examples: Ada (the creator) pays Grace for a
// landing page; Grace raises a dispute over the delivery. The escrow page shows an earlier one,
// released, with its two payout legs.
const EX_RELEASED_ESCROW = '6b0483b5bce238a5cbe00a58'
const EX_RELEASED_COLLECTION = '6b0483b4bce238a5cbe00a57'
const EX_JOB_CREATED = '2026-11-20T09:00:00.000Z'
const EX_DELIVERED = '2026-11-23T17:02:11.204Z'

export const AdminChain = Type.Object(
  {
    chainId: Type.Integer(),
    name: Type.String(),
    explorerTxUrl: Nullable(
      Type.String(),
      'a transaction on the chain’s explorer, `{txHash}` to be replaced; from the first `chain.blockExplorerUrls` of the coins configuration (null: none configured)',
    ),
  },
  {
    $id: 'AdminChain',
    examples: [
      { chainId: 43114, name: 'Avalanche C-Chain', explorerTxUrl: 'https://snowtrace.io/tx/{txHash}' },
    ],
  },
)

export const AdminUserOverview = Type.Object(
  {
    user: AdminUser,
    custodialAddress: Nullable(Type.String(), 'the deposit address (null before the first wallet read)'),
    keyExportedAt: Nullable(NullableTimestamp, 'when the user exported the address’s key'),
    balances: Type.Array(
      Type.Object({
        coin: Type.String(),
        available: Units('base units the wallet may spend (less pending holds)'),
        amountText: Type.String(),
      }),
    ),
    deposits: Type.Array(
      Type.Object({
        txHash: Type.String(),
        logIndex: Type.Integer({ description: '-1: native value' }),
        coin: Type.String(),
        amount: Units('base units'),
        amountText: Type.String(),
        blockNumber: Type.String(),
        state: Type.Union([Type.Literal('credited'), Type.Literal('parked'), Type.Literal('recorded')]),
        transferId: Nullable(Type.String(), 'the ledger transfer of the credit'),
        createdAt: Timestamp,
      }),
      { description: 'the newest deposits recorded to the custodial address (at most 10)' },
    ),
    escrows: Type.Array(
      Type.Object({
        _id: Type.String(),
        collectionId: Type.String(),
        role: Type.Union([Type.Literal('payer'), Type.Literal('receiver')]),
        coin: Type.String(),
        amountText: Type.String(),
        status: Type.String(),
        createdAt: Timestamp,
      }),
      { description: 'the newest escrows the user pays or receives (at most 10)' },
    ),
    jobs: Type.Array(
      Type.Object({
        _id: Type.String(),
        name: Type.String(),
        type: Type.String(),
        status: Type.String(),
        role: Type.Union([Type.Literal('creator'), Type.Literal('talent')]),
        createdAt: Timestamp,
      }),
      { description: 'the newest jobs the user created or works on (at most 10)' },
    ),
    sessions: Type.Array(
      Type.Object({
        _id: Type.String(),
        ip: Nullable(Type.String()),
        userAgent: Nullable(Type.String()),
        createdAt: Timestamp,
      }),
      { description: 'live sessions, newest first (at most 10)' },
    ),
  },
  {
    $id: 'AdminUserOverview',
    examples: [
      {
        user: {
          ...first(AdminUser),
          _id: EX.userId,
          suspended: false,
          suspendedAt: null,
          suspendedReason: null,
          lastLoginAt: EX.later,
          createdAt: EX.created,
        },
        custodialAddress: EX.walletAddress,
        keyExportedAt: null,
        balances: [
          { coin: 'avax', available: '1250000000000000000', amountText: '1.25 AVAX' },
          { coin: 'usdc', available: '42500000', amountText: '42.5 USDC' },
        ],
        deposits: [
          {
            txHash: EX.txHash,
            logIndex: 3,
            coin: 'usdc',
            amount: '200000000',
            amountText: '200 USDC',
            blockNumber: '1042',
            state: 'credited',
            transferId: EX.transactionId,
            createdAt: EX.created,
          },
        ],
        escrows: [
          {
            _id: EX.escrowId,
            collectionId: EX.collectionId,
            role: 'payer',
            coin: 'usdc',
            amountText: '150 USDC',
            status: 'paid',
            createdAt: EX.created,
          },
          {
            _id: EX_RELEASED_ESCROW,
            collectionId: EX_RELEASED_COLLECTION,
            role: 'payer',
            coin: 'usdc',
            amountText: '150 USDC',
            status: 'released',
            createdAt: '2026-11-02T10:15:00.000Z',
          },
        ],
        jobs: [
          {
            _id: EX.collectionId,
            name: 'Landing page',
            type: 'job',
            status: 'disputed',
            role: 'creator',
            createdAt: EX_JOB_CREATED,
          },
        ],
        sessions: [
          {
            _id: '6b048375bce238a5cbe00a2d',
            ip: '203.0.113.24',
            userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 Safari/605.1.15',
            createdAt: EX.later,
          },
        ],
      },
    ],
  },
)

export const AdminEscrow = Type.Object(
  {
    _id: Type.String(),
    collectionId: Type.String(),
    parentEscrowId: Nullable(Type.String()),
    payerId: Type.String(),
    payerEmail: Nullable(Type.String()),
    receiverId: Nullable(Type.String()),
    receiverEmail: Nullable(Type.String()),
    coin: Type.String(),
    address: Type.String({ description: 'the escrow’s custodial address' }),
    status: Type.String({ description: '`waiting`, `paid`, `releasing`, `released` or `cancelled`' }),
    usdCents: Units('the price in USD cents'),
    amount: Units('base units held for the price'),
    amountText: Type.String(),
    amountToPay: Units('base units the payer sends (price and fee)'),
    received: Units('base units received'),
    receivedText: Type.String(),
    releasedPayout: Units('base units paid out'),
    releasedFee: Units('base units of fees paid'),
    payTransferId: Nullable(Type.String(), 'the outgoing transfer that paid it from the payer’s wallet'),
    expiresAt: Timestamp,
    paidAt: NullableTimestamp,
    releasedAt: NullableTimestamp,
    cancelledAt: NullableTimestamp,
    createdAt: Timestamp,
    legs: Type.Array(AdminEscrowLeg, { description: 'the payout legs, in order' }),
  },
  {
    $id: 'AdminEscrow',
    examples: [
      {
        _id: EX_RELEASED_ESCROW,
        collectionId: EX_RELEASED_COLLECTION,
        parentEscrowId: null,
        payerId: EX.userId,
        payerEmail: EX.email,
        receiverId: EX.otherUserId,
        receiverEmail: 'grace@example.com',
        coin: 'usdc',
        address: EX.escrowAddress,
        status: 'released',
        usdCents: '15000',
        amount: '150000000',
        amountText: '150 USDC',
        amountToPay: '154500000',
        received: '154500000',
        receivedText: '154.5 USDC',
        releasedPayout: '145500000',
        releasedFee: '9000000',
        payTransferId: '6b048377bce238a5cbe00a3a',
        expiresAt: '2026-11-09T10:15:00.000Z',
        paidAt: '2026-11-02T10:16:42.310Z',
        releasedAt: '2026-11-06T15:40:03.981Z',
        cancelledAt: null,
        createdAt: '2026-11-02T10:15:00.000Z',
        legs: [
          {
            coin: 'usdc',
            _id: '6b0483b6bce238a5cbe00a59',
            escrowId: EX_RELEASED_ESCROW,
            collectionId: EX_RELEASED_COLLECTION,
            kind: 'payout',
            seq: 1,
            to: EX.outsideAddress,
            amount: '145500000',
            amountText: '145.5 USDC',
            status: 'completed',
            attempt: 1,
            failures: 0,
            lastError: null,
            txHash: EX_HASH,
            transferId: '6b048377bce238a5cbe00a3b',
            transferStatus: 'completed',
            payerId: EX.userId,
            receiverId: EX.otherUserId,
            receiverEmail: 'grace@example.com',
            ageSeconds: 1987200,
            createdAt: '2026-11-06T15:40:03.981Z',
            updatedAt: '2026-11-06T15:41:10.502Z',
            actions: { retry: false, replace: false, cancel: false },
          },
          {
            coin: 'usdc',
            _id: '6b0483b6bce238a5cbe00a5a',
            escrowId: EX_RELEASED_ESCROW,
            collectionId: EX_RELEASED_COLLECTION,
            kind: 'fee',
            seq: 2,
            to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
            amount: '9000000',
            amountText: '9 USDC',
            status: 'completed',
            attempt: 1,
            failures: 0,
            lastError: null,
            txHash: '0x9a3f0c6b1e2d4a5f8c7b6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a291',
            transferId: '6b048377bce238a5cbe00a3c',
            transferStatus: 'completed',
            payerId: EX.userId,
            receiverId: null,
            receiverEmail: null,
            ageSeconds: 1987200,
            createdAt: '2026-11-06T15:40:03.981Z',
            updatedAt: '2026-11-06T15:41:12.118Z',
            actions: { retry: false, replace: false, cancel: false },
          },
        ],
      },
    ],
  },
)

const jobFields = {
  _id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  status: Type.String(),
  description: Type.String(),
  creatorId: Type.String(),
  receiverId: Nullable(Type.String()),
  parentId: Nullable(Type.String()),
  escrowId: Nullable(Type.String()),
  paymentFee: Type.String({ description: 'the price in USD' }),
  issue: Type.String({ description: 'the reason of a dispute raised on it' }),
  deliveryNote: Type.String(),
  deliveredAt: NullableTimestamp,
  completedAt: NullableTimestamp,
  cancelledAt: NullableTimestamp,
  cancellationReason: Type.String(),
  attachments: Type.Array(FileSummary),
  deliveryAttachments: Type.Array(FileSummary),
  dispute: Nullable(
    Type.Object({ id: Type.String(), status: Type.String() }),
    'the job’s dispute, when one was raised',
  ),
  createdAt: Timestamp,
}

const jobExample = {
  _id: EX.collectionId,
  name: 'Landing page',
  type: 'job',
  status: 'disputed',
  description: 'One responsive page with a contact form',
  creatorId: EX.userId,
  receiverId: EX.otherUserId,
  parentId: null,
  escrowId: EX.escrowId,
  paymentFee: '150.00',
  issue: DISPUTE.reason,
  deliveryNote: 'The page and its form are live on the staging site.',
  deliveredAt: EX_DELIVERED,
  completedAt: null,
  cancelledAt: null,
  cancellationReason: '',
  attachments: [first(FileSummary)],
  deliveryAttachments: [],
  dispute: { id: DISPUTE_ID, status: 'open' },
  createdAt: EX_JOB_CREATED,
}

export const AdminJob = Type.Object(jobFields, { $id: 'AdminJob', examples: [jobExample] })

export const AdminDispute = Type.Object(
  {
    ...Dispute.properties,
    raisedByEmail: Nullable(Type.String(), 'the email of the account that raised it (none once erased)'),
    decidedByEmail: Nullable(Type.String(), 'the email of the arbiter who decided it, when one did'),
    proposedByEmail: Nullable(
      Type.String(),
      'the email of the party who made the last proposal, when one did',
    ),
    job: Nullable(AdminJob, 'the disputed job: description, delivery, attachments'),
    messages: Type.Object(
      {
        total: Type.Integer({ description: 'messages in the job’s conversation' }),
        data: Type.Array(ChatMessage, { description: 'the newest 50, newest first' }),
      },
      { description: 'the conversation of the job between its creator and its talent' },
    ),
  },
  {
    $id: 'AdminDispute',
    examples: [
      {
        ...DISPUTE,
        raisedByEmail: 'grace@example.com',
        decidedByEmail: null,
        proposedByEmail: EX.email,
        job: jobExample,
        messages: { total: 1, data: [first(ChatMessage)] },
      },
    ],
  },
)
