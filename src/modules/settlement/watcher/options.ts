// What the deposit watcher is built with: its collaborators and its tunables.
import type { Logger } from 'pino'
import type { Database, Executor } from '../../../db/index.ts'
import type { ChainAdapter, Confirmations } from '../../../platform/chain/types.ts'
import type { Clock } from '../../../platform/clock.ts'
import type { JobQueue } from '../../../platform/jobs/queue.ts'
import type { Ledger } from '../../ledger/types.ts'
import type { TransactionService } from '../../transactions/types.ts'
import type { Halts } from '../reconcile/halts.ts'
import type { ReorgRepairs } from '../reorgs/service.ts'

/** The coins operators add at run time, as the watcher needs them (the coin registry). */
export interface WatchedCoins {
  /** coins added (read in `ex`) that `known` lacks */
  missing(ex: Executor, known: readonly string[]): Promise<string[]>
  /** re-reads them, registering new ones with the chain adapter */
  reload(): Promise<void>
}

export interface WatcherDeps {
  database: Database
  chain: ChainAdapter
  clock: Clock
  log: Logger
  jobs: JobQueue
  ledger: Ledger
  transactions: TransactionService
  halts: Halts
  /** records the deposits a deep reorganisation took back, their value held (the module always
   * gives it; a watcher built by a test of something else may go without) */
  reorgs?: Pick<ReorgRepairs, 'record'>
  /** blocks before a deposit counts, or the chain's finalized block (CONFIRMATIONS) */
  confirmations: Confirmations
  /** coins added at run time; absent: the adapter's coins never change */
  coins?: WatchedCoins
}

export interface WatcherOptions {
  /** blocks per range: bounds one database transaction */
  batchBlocks: number
  /** how often the job polls the chain */
  intervalMs: number
  /** how long `waitForScan` waits at most */
  scanWaitMs: number
  /** how often `waitForScan` looks at the cursor */
  pollMs: number
  /** parked movements of resumed coins applied per pass */
  parkedPerPass: number
  /** how far below the cursor a deep reorganisation's vanished deposits are looked for */
  reorgLookbackBlocks: number
}

export const DEFAULT_WATCHER_OPTIONS: WatcherOptions = {
  batchBlocks: 200,
  intervalMs: 2000,
  scanWaitMs: 5000,
  pollMs: 100,
  parkedPerPass: 500,
  reorgLookbackBlocks: 2048,
}
