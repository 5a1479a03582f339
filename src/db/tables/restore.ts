// Table types of restores meeting the chain (camelCase; CamelCasePlugin maps them to snake_case
// columns): transactions of custodial addresses the restored database did not know.
import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
/** NUMERIC(78,0) base units: read as a decimal string, written from a bigint's string */
type Units = ColumnType<string, string | bigint, string | bigint>

/**
 * `open`: its coins are halted and its movements parked; `reattached`: matched to a withdrawal of
 * the platform (recreated, or an open one) and settled as that withdrawal; `external`: an operator
 * judged it signed outside the platform, and its movements are booked as an external withdrawal;
 * `lost`: no open record of the copy matched it, and an operator booked its value out of its
 * address's owner account (an escrow's, the fee account) as gone, with a reason.
 */
export type PlatformTransferStatus = 'open' | 'reattached' | 'external' | 'lost'

/** What a re-attached transaction settled: a withdrawal, an escrow's leg, or a fee sweep. */
export type PlatformTransferRecordKind = 'withdrawal' | 'escrowLeg' | 'feeSweep'

export interface PlatformTransferFindingsTable {
  id: string
  chainId: string
  txHash: string
  /** the custodial address that signed it (lower case) */
  address: string
  ownerKind: string
  ownerId: string
  /** the coin of the value it moved (the native coin when it moved none) */
  coin: string
  amount: Units
  /** where the value went (lower case); null for a contract creation */
  toAddress: string | null
  /** the native coin its gas was paid in */
  gasCoin: string | null
  gasFee: Units
  /** int8, read as a number by both drivers */
  blockNumber: number
  status: ColumnType<PlatformTransferStatus, PlatformTransferStatus | undefined, PlatformTransferStatus>
  withdrawalId: string | null
  transferId: string | null
  recordKind: ColumnType<
    PlatformTransferRecordKind | null,
    PlatformTransferRecordKind | null | undefined,
    PlatformTransferRecordKind | null
  >
  recordId: string | null
  detectedAt: Timestamp
  resolvedAt: NullableTimestamp
  resolvedBy: string | null
  resolveReason: string | null
}

export interface RestoreTables {
  platformTransferFindings: PlatformTransferFindingsTable
}
