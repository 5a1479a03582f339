// Table types of settlement's reorganisation findings (camelCase; CamelCasePlugin maps them to
// snake_case columns).
import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
/** NUMERIC(78,0) base units: read as a decimal string, written from a bigint's string */
type Units = ColumnType<string, string | bigint, string | bigint>

/**
 * `open`: the value is held until an operator reverses or keeps it; `reversed`: compensating entries
 * took the credit back; `kept`: the deposit was found again on the canonical chain; `dropped`: a
 * parked (never credited) deposit that vanished, taken out of the parking.
 */
export type ReorgFindingStatus = 'open' | 'reversed' | 'kept' | 'dropped'

/** A deposit a reorganisation deeper than the confirmations took back. */
export interface ReorgFindingsTable {
  id: string
  chainId: string
  txHash: string
  /** -1 for native value */
  logIndex: number
  address: string
  ownerKind: string
  ownerId: string
  coin: string
  amount: Units
  /** int8, read as a number by both drivers */
  blockNumber: number
  blockHash: string
  /** whether the watcher had credited it (false: it was parked while its coin was halted) */
  credited: boolean
  creditTransferId: string | null
  /** the ledger account it credited */
  accountId: string | null
  /** the hold that keeps the value from being spent (none when nothing was available) */
  holdId: string | null
  held: ColumnType<string, string | bigint | undefined, string | bigint>
  /** what the owner had spent of it already when it was found */
  shortfall: ColumnType<string, string | bigint | undefined, string | bigint>
  status: ColumnType<ReorgFindingStatus, ReorgFindingStatus | undefined, ReorgFindingStatus>
  detectedAt: Timestamp
  resolvedAt: NullableTimestamp
  resolvedBy: string | null
  resolveReason: string | null
  reversalTransferId: string | null
  lossTransferId: string | null
}

export interface ReorgTables {
  reorgFindings: ReorgFindingsTable
}
