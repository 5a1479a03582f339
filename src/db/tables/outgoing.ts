// Table types of outgoing transfers' postings and reported events (settlement module).
import type { ColumnType } from 'kysely'
import type { LedgerAccountKind } from './ledger.ts'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
/** NUMERIC(78,0) base units: read as a decimal string, written from a bigint's string */
type Units = ColumnType<string, string | bigint, string | bigint>

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

export interface OutgoingTables {
  outgoingPostings: OutgoingPostingsTable
  outgoingEvents: OutgoingEventsTable
}
