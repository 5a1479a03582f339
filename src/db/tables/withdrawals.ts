// Table types of the withdrawals module (camelCase; CamelCasePlugin maps them to snake_case columns).
import type { ColumnType, Generated } from 'kysely'
import type { NullableTimestamp, Timestamp } from '../types.ts'

/** NUMERIC(78,0) base units: read as a decimal string, written from a bigint's string */
type Units = ColumnType<string, string | bigint, string | bigint>
type NullableUnits = ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>
/** jsonb with a default: read as the value, written as JSON text */
type JsonCol<T> = ColumnType<T, string | undefined, string>

export type OutgoingStatus = 'queued' | 'signed' | 'sent' | 'completed' | 'failed'
export type OutgoingFromKind = 'user' | 'escrow' | 'treasury' | 'platform'
export type WithdrawalStatus = 'pending' | 'processing' | 'completed' | 'failed'

export interface OutgoingTransfersTable {
  id: string
  chainId: string
  idempotencyKey: string
  purpose: string
  referenceId: Generated<string>
  fromKind: OutgoingFromKind
  /** custodial key owner id, or the platform signer name (`gasWallet`, `treasury`) */
  fromOwnerId: string
  /** lower-case sending address */
  fromAddress: string
  coin: string
  toAddress: string
  amount: Units
  fundingAccountId: string | null
  /** the pending ledger hold of exactly `amount` that settlement posts (to the chain) or voids */
  fundingHoldId: Generated<string | null>
  /** the ledger hold of the gas reserved at the sending address */
  gasHoldId: Generated<string | null>
  creditAccountId: string | null
  status: Generated<OutgoingStatus>
  startedAt: NullableTimestamp
  failures: Generated<number>
  errors: JsonCol<string[]>
  wakeSeq: Generated<number>
  gasReserved: ColumnType<string, string | bigint | undefined, string | bigint>
  gasLimit: NullableUnits
  maxFee: NullableUnits
  nonce: number | null
  raw: string | null
  txHash: string | null
  signedAt: NullableTimestamp
  broadcastAt: NullableTimestamp
  receipt: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>
  error: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>
  meta: JsonCol<Record<string, unknown>>
  createdAt: Timestamp
  updatedAt: Timestamp
  settledAt: NullableTimestamp
  /** set while the transfer waits for the network's fee to fall under its coin's maximum */
  waitingForFee: ColumnType<FeeWait | null, string | null | undefined, string | null>
}

/** Why an outgoing transfer waits for the fee (amounts per gas, in wei, as decimal strings). */
export interface FeeWait {
  /** when it started waiting (ISO 8601) */
  since: string
  /** what the network asks per gas now (next base fee + tip, or the gas price) */
  feePerGas: string
  /** the coin's maximum per gas */
  maxFeePerGas: string
  /** `sign`: nothing signed yet; `replace`: its pending transaction is not replaced above the maximum */
  step: 'sign' | 'replace'
}

export interface OutgoingNoncesTable {
  chainId: string
  address: string
  nextNonce: number
  updatedAt: Timestamp
}

export interface WithdrawalsTable {
  id: string
  ownerId: string
  coin: string
  address: string
  amount: Units
  fee: Units
  usdValue: ColumnType<string, string | number | undefined, string | number>
  usdRate: Generated<string>
  status: Generated<WithdrawalStatus>
  retryCount: Generated<number>
  errMsg: JsonCol<string[]>
  outgoingId: string | null
  transactionId: string | null
  /** the ledger hold of the amount: its transfer's funding hold, posted by settlement on success
   * and voided on failure (amount + fee for withdrawals settled before fees had holds of their own) */
  holdId: Generated<string | null>
  /** the ledger hold of the fee, posted to the address's treasury account by the withdrawal's
   * completed handler and voided by its failed handler (null: no fee, or settled before) */
  feeHoldId: Generated<string | null>
  txHash: string | null
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface WithdrawalTables {
  outgoingTransfers: OutgoingTransfersTable
  outgoingNonces: OutgoingNoncesTable
  withdrawals: WithdrawalsTable
}
