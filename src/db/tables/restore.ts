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
 * judged it signed outside the platform, and its movements are booked as an external withdrawal.
 */
export type PlatformTransferStatus = 'open' | 'reattached' | 'external'

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
  detectedAt: Timestamp
  resolvedAt: NullableTimestamp
  resolvedBy: string | null
  resolveReason: string | null
}

export interface RestoreTables {
  platformTransferFindings: PlatformTransferFindingsTable
}
