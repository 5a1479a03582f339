// Table types of the chain module (camelCase; CamelCasePlugin maps them to snake_case columns).
import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type JsonValue<T> = ColumnType<T, string, string>

export interface ChainsTable {
  id: string
  rpcName: string
  rpcChainId: string
  rpcUrls: JsonValue<string[]>
  blockExplorerUrls: JsonValue<string[]>
  rpcNativeCurrency: JsonValue<{ name: string; symbol: string; decimals: string }>
  active: Generated<boolean>
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface CoinsTable {
  id: string
  name: string
  symbol: string
  /** lowercase slug, unique */
  reference: string
  icon: Generated<string>
  /** null for the native coin */
  contractAddress: string | null
  decimal: number
  isToken: boolean
  rpcChainId: string
  active: Generated<boolean>
  /** the API's `order` (a reserved word in SQL) */
  displayOrder: Generated<number>
  /** USD per whole coin: numeric, read as a decimal string */
  usdRate: ColumnType<string, string, string>
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface DevnetJournalTable {
  seq: Generated<number>
  method: string
  params: JsonValue<unknown[]>
  createdAt: Generated<Date>
}

export interface ChainTables {
  chains: ChainsTable
  coins: CoinsTable
  devnetJournal: DevnetJournalTable
}
