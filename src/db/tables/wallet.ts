// Table types of the wallet module (camelCase; CamelCasePlugin maps them to snake_case columns).
import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
/** NUMERIC(78,0) base units: read as a decimal string, written from a bigint's string */
type Units = ColumnType<string, string | bigint, string | bigint>

export type KeyOwnerKind = 'user' | 'escrow' | 'treasury'
export type { LedgerAccountKind } from './ledger.ts'

export interface WalletKeysTable {
  id: string
  ownerKind: KeyOwnerKind
  ownerId: string
  /** lower-case 0x address */
  address: string
  /** the private key sealed by the secret box, associated data `wallet-key:<address>` */
  sealedKey: string
  exportedAt: NullableTimestamp
  createdAt: Timestamp
}

export interface TransactionsTable {
  id: string
  ownerId: string
  amount: Units
  coin: string
  chainId: Generated<string>
  /** null when no USD rate could be had (never stored as 0) */
  usdValue: ColumnType<string | null, string | number | null | undefined, string | number | null>
  /** USD per whole coin; null when no rate could be had */
  rate: ColumnType<string | null, string | null | undefined, string | null>
  description: Generated<string>
  txInfo: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>
  type: 'deposit' | 'withdrawal'
  method: string
  status: 'pending' | 'completed' | 'failed' | 'cancelled'
  isFee: Generated<boolean>
  isPlatformFee: Generated<boolean>
  isExternal: boolean | null
  responseData: Generated<string>
  transferId: string | null
  txHash: string | null
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface WalletTables {
  walletKeys: WalletKeysTable
  transactions: TransactionsTable
}
