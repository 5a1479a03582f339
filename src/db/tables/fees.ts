// Table types of the fees module: sweeps of the platform's fees to a cold address.
import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
/** NUMERIC(78,0) base units: read as a decimal string, written from a bigint's string */
type Units = ColumnType<string, string | bigint, string | bigint>

/** `pending` until settlement reports the transfer's outcome. */
export type FeeSweepStatus = 'pending' | 'confirmed' | 'failed'

export interface FeeSweepsTable {
  id: string
  coin: string
  amount: Units
  /** the platform's fee address (lower case) */
  fromAddress: string
  /** the cold address (lower case) */
  toAddress: string
  /** the ledger hold on the fee account that funds the transfer */
  holdId: string
  outgoingId: string | null
  status: Generated<FeeSweepStatus>
  failures: Generated<number>
  lastError: string | null
  txHash: string | null
  /** the admin who asked for it */
  requestedBy: string
  reason: string
  /** sha256 of `<admin id>:<Idempotency-Key>` when the request carried one */
  requestKey: string | null
  createdAt: Timestamp
  updatedAt: Timestamp
  settledAt: NullableTimestamp
}

export interface FeeTables {
  feeSweeps: FeeSweepsTable
}
