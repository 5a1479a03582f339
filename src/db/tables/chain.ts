// Table types of the chain and settlement tables (camelCase; CamelCasePlugin maps them to
// snake_case columns): coins and chains, the deposit watcher's cursor and events, transactions the
// platform signs, coin halts and reconciliation runs.
import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
type JsonValue<T> = ColumnType<T, string, string>
/** jsonb with a default: read as the value, written as JSON text */
type JsonCol<T> = ColumnType<T, string | undefined, string>
/** NUMERIC(78,0) base units: read as a decimal string, written from a bigint's string */
type Units = ColumnType<string, string | bigint, string | bigint>

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
  /** the admin who added the coin at run time; null for a coin of the configuration */
  addedBy: ColumnType<string | null, string | null | undefined, string | null>
}

export interface DevnetJournalTable {
  seq: Generated<number>
  method: string
  params: JsonValue<unknown[]>
  createdAt: Generated<Date>
}

/** Where the deposit watcher has read each chain up to (the last processed block and its hash). */
export interface ChainCursorsTable {
  chainId: string
  blockNumber: number
  blockHash: string
  updatedAt: Timestamp
}

export type ChainEventKind = 'deposit' | 'withdrawal' | 'fee'

/** Every chain movement the watcher acted on, once. */
export interface ChainEventsTable {
  chainId: string
  txHash: string
  /** -1 for native value */
  logIndex: number
  kind: ChainEventKind
  /** the custodial address concerned (lower case) */
  address: string
  ownerKind: string
  ownerId: string
  coin: string
  amount: Units
  blockNumber: number
  blockHash: string
  transferId: string | null
  transactionId: string | null
  /** the ledger account a deposit credited */
  accountId: string | null
  /** when the deposit's report (the deposit.credited job) was handled */
  reportedAt: NullableTimestamp
  /** position of the transaction in its block */
  txIndex: number | null
  /** the classified movement of a halted coin, parked until the coin is resumed */
  held: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>
  createdAt: Timestamp
}

/** Transactions the platform signs itself (not external withdrawals of the sending address). */
export interface ChainOutgoingTable {
  chainId: string
  txHash: string
  address: string
  purpose: Generated<string>
  creditAccountId: string | null
  createdAt: Timestamp
}

export type HaltReason =
  | 'ledger_mismatch'
  | 'ledger_invariant'
  | 'reorg'
  | 'manual'
  /** a custodial key that was never exported signed a transaction this database does not know */
  | 'unknown_platform_transfer'

/** A coin whose crediting and sending stopped until an operator clears the halt. */
export interface CoinHaltsTable {
  id: string
  coin: string
  reason: HaltReason
  details: JsonCol<Record<string, unknown>>
  haltedBy: Generated<string>
  haltedAt: Timestamp
  clearedAt: NullableTimestamp
  clearedBy: string | null
  clearReason: string | null
}

export interface ReconciliationRunsTable {
  id: string
  chainId: string
  status: 'ok' | 'mismatch' | 'failed'
  /** the block the chain balances were read at (the watcher's cursor) */
  blockNumber: number | null
  violations: JsonCol<unknown[]>
  error: string | null
  startedAt: Timestamp
  finishedAt: Timestamp
}

/** Per coin of a run: the ledger and chain totals over the custodial addresses compared. */
export interface ReconciliationResultsTable {
  runId: string
  coin: string
  ledgerTotal: Units
  chainTotal: Units
  /** chain − ledger */
  drift: Units
  addressesChecked: number
  addressesSkipped: number
  mismatches: JsonCol<unknown[]>
}

/** An operator's settings of a coin over its configuration (null: as configured). */
export interface CoinSettingsTable {
  reference: string
  active: boolean | null
  /** USD per whole coin: numeric, read as a decimal string */
  usdRate: ColumnType<string | null, string | null, string | null>
  updatedBy: string | null
  updatedAt: Timestamp
}

export interface ChainTables {
  chains: ChainsTable
  coins: CoinsTable
  coinSettings: CoinSettingsTable
  devnetJournal: DevnetJournalTable
  chainCursors: ChainCursorsTable
  chainEvents: ChainEventsTable
  chainOutgoing: ChainOutgoingTable
  coinHalts: CoinHaltsTable
  reconciliationRuns: ReconciliationRunsTable
  reconciliationResults: ReconciliationResultsTable
}
