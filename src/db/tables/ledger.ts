// Table types of the ledger module (camelCase; CamelCasePlugin maps them to snake_case columns).
import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
/** NUMERIC(78,0) base units: read as a decimal string, written from a bigint's string */
type Units = ColumnType<string, string | bigint, string | bigint>

export type LedgerAccountKind =
  | 'user'
  | 'escrow'
  | 'platform_fee'
  | 'withdrawal_hold'
  | 'treasury'
  | 'chain'
  | 'platform_loss'
export type LedgerHoldStatus = 'pending' | 'posted' | 'voided'

export interface LedgerAccountsTable {
  id: string
  kind: LedgerAccountKind
  ownerId: Generated<string>
  coin: string
  /** cached sum of the entries; not kept for system accounts (their entries are the balance) */
  balance: ColumnType<string, string | bigint | undefined, string | bigint>
  /** reserved by pending holds */
  held: ColumnType<string, string | bigint | undefined, string | bigint>
  createdAt: Timestamp
  updatedAt: Timestamp
}

export interface LedgerTransfersTable {
  id: string
  idempotencyKey: string
  /** sha-256 of the transfer's input ('' for transfers written before it was stored) */
  inputHash: Generated<string>
  coin: string
  kind: Generated<string>
  description: Generated<string>
  createdAt: Timestamp
}

export interface LedgerEntriesTable {
  id: Generated<number>
  transferId: string
  accountId: string
  coin: string
  amount: Units
  createdAt: Timestamp
}

export interface LedgerHoldsTable {
  id: string
  idempotencyKey: string
  inputHash: string
  accountId: string
  coin: string
  amount: Units
  status: Generated<LedgerHoldStatus>
  postedAmount: ColumnType<string, string | bigint | undefined, string | bigint>
  transferId: string | null
  kind: Generated<string>
  description: Generated<string>
  createdAt: Timestamp
  resolvedAt: NullableTimestamp
  /** the idempotency key of the post or void that resolved it (null while pending) */
  resolutionKey: string | null
  /** when set, the hold voids itself at this time unless resolved before */
  expiresAt: NullableTimestamp
  /** set when it was voided by its timeout */
  expiredAt: NullableTimestamp
}

export interface LedgerTables {
  ledgerAccounts: LedgerAccountsTable
  ledgerTransfers: LedgerTransfersTable
  ledgerEntries: LedgerEntriesTable
  ledgerHolds: LedgerHoldsTable
}
