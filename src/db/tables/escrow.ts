// Table types of the escrow module (camelCase; CamelCasePlugin maps them to snake_case columns).
import type { ColumnType, Generated } from 'kysely'
import type { NullableTimestamp, Timestamp } from '../types.ts'

/** NUMERIC base units or cents: read as a decimal string, written from a bigint's string */
type Units = ColumnType<string, string | bigint, string | bigint>

export type EscrowStatus = 'waiting' | 'paid' | 'releasing' | 'released' | 'cancelled'
export type LegKind = 'payout' | 'fee' | 'platformFee' | 'refund' | 'fund'
export type LegStatus = 'awaiting' | 'processing' | 'completed' | 'failed'

export interface EscrowsTable {
  id: string
  collectionId: string
  payerId: string
  /** null for an escrow funded for a collection that has no receiver yet (set at release) */
  receiverId: string | null
  parentEscrowId: string | null
  coin: string
  decimals: number
  /** lower-case payment address (a custodial key with owner kind `escrow`) */
  address: string
  status: Generated<EscrowStatus>
  escrowCents: Units
  rate: string
  feePercent: string
  coinEscrowAmount: Units
  expectedFee: Units
  amountToPay: Units
  usdFeeCents: Units
  usdAmountCents: Units
  received: ColumnType<string, string | bigint | undefined, string | bigint>
  fundedToChildren: ColumnType<string, string | bigint | undefined, string | bigint>
  /** USD cents of the price released so far (partial releases add up to escrowCents) */
  releasedCents: ColumnType<string, string | bigint | undefined, string | bigint>
  /** base units paid out to the receiver so far */
  releasedPayout: ColumnType<string, string | bigint | undefined, string | bigint>
  /** base units of fee (network and platform) released so far */
  releasedFee: ColumnType<string, string | bigint | undefined, string | bigint>
  /** the outgoing transfer of the latest in-app payment */
  payTransferId: string | null
  /** the ledger hold of the latest in-app payment */
  payHoldId: Generated<string | null>
  expiresAt: Timestamp
  paidAt: NullableTimestamp
  releasedAt: NullableTimestamp
  cancelledAt: NullableTimestamp
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface EscrowLegsTable {
  id: string
  escrowId: string
  kind: LegKind
  seq: number
  toAddress: string
  amount: Units
  status: Generated<LegStatus>
  attempt: Generated<number>
  failures: Generated<number>
  outgoingId: string | null
  txHash: string | null
  transactionId: string | null
  lastError: string | null
  createdAt: Timestamp
  updatedAt: Timestamp
}

/** One release of an escrow: a part of its price, or the rest (`final`). */
export interface EscrowReleasesTable {
  id: string
  escrowId: string
  receiverId: string
  cents: Units
  payout: Units
  fee: Units
  networkFee: Units
  refund: ColumnType<string, string | bigint | undefined, string | bigint>
  final: boolean
  /** the Idempotency-Key of the request that made it */
  requestKey: string | null
  createdAt: Timestamp
}

/** A public payment order (direct deposit): an escrow of the collection and who paid it. */
export interface DirectDepositsTable {
  id: string
  escrowId: string
  collectionId: string
  /** lower case; never matched against accounts */
  payerEmail: string | null
  /** lower case; where refunds go (null: recorded in operatorRefund for an operator) */
  payerAddress: string | null
  expiresAt: Timestamp
  /** set when the order expired unpaid (its escrow cancelled) */
  expiredAt: NullableTimestamp
  /** base units held for an operator to refund (payer gave only an email) */
  operatorRefund: ColumnType<string, string | bigint | undefined, string | bigint>
  createdAt: Timestamp
  updatedAt: Timestamp
}

export interface EscrowTables {
  escrows: EscrowsTable
  escrowLegs: EscrowLegsTable
  escrowReleases: EscrowReleasesTable
  directDeposits: DirectDepositsTable
}
