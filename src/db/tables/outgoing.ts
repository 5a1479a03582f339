// Table types of outgoing transfers' postings, reported events and signed transactions
// (settlement module).
import type { ColumnType } from 'kysely'
import type { LedgerAccountKind } from './ledger.ts'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
/** NUMERIC(78,0) base units: read as a decimal string, written from a bigint's string */
type Units = ColumnType<string, string | bigint, string | bigint>

/** Read-only history: postings settlement booked with the outcome of transfers settled before
 * callers reserved their extras (a withdrawal's fee) with holds of their own. Nothing writes it. */
export interface OutgoingPostingsTable {
  transferId: string
  outcome: 'completed' | 'failed'
  seq: number
  idempotencyKey: string
  accountKind: LedgerAccountKind
  accountOwnerId: string
  amount: Units
  kind: string
  description: ColumnType<string, string | undefined, string>
  ledgerTransferId: string | null
}

export interface OutgoingEventsTable {
  transferId: string
  event: string
  appliedAt: Timestamp
}

export type OutgoingTransactionStatus = 'pending' | 'mined' | 'replaced'

export interface OutgoingTransactionsTable {
  transferId: string
  seq: number
  txHash: string
  raw: string
  maxFee: Units
  status: ColumnType<
    OutgoingTransactionStatus,
    OutgoingTransactionStatus | undefined,
    OutgoingTransactionStatus
  >
  signedAt: Timestamp
}

export interface OutgoingTables {
  outgoingPostings: OutgoingPostingsTable
  outgoingEvents: OutgoingEventsTable
  outgoingTransactions: OutgoingTransactionsTable
}
