// The deposit watcher's one entry point: the `wallet.watch` job. It follows the chain from a
// stored cursor, a block range at a time (fetch → classify → apply), so that what moved at
// custodial addresses becomes ledger transfers and transaction records exactly once. The job
// renews itself every `intervalMs`; HTTP routes and other jobs that need fresh chain state ask
// for a scan by enqueuing one (`requestScan`, `waitForScan`) instead of scanning themselves.
//
// - One leader per chain: a session advisory lock on a dedicated PostgreSQL connection; the
//   embedded database belongs to one process, which serialises its scans in memory. The cursor
//   row is also compared-and-set, so an overlapping scan can never apply a range twice.
// - A processed block that the chain replaced (a reorg deeper than CONFIRMATIONS) halts every
//   coin of the chain: the watcher goes on reading, but parks what it finds until an operator
//   resumes the coins (docs/operations.md). A coin halted by reconciliation is parked the same way.
//   The deposits recorded in the replaced blocks that the chain no longer has become findings in
//   the same transaction, their value held on the accounts they credited (../reorgs/service.ts).
import type { Logger } from 'pino'
import type { Database, Executor } from '../../../db/index.ts'
import type { ChainAdapter, Confirmations } from '../../../platform/chain/types.ts'
import type { Clock } from '../../../platform/clock.ts'
import type { JobQueue } from '../../../platform/jobs/queue.ts'
import type { TransactionService } from '../../transactions/service.ts'
import type { Ledger } from '../../wallet/ledger.ts'
import type { Halts } from '../reconcile/halts.ts'
import { vanishedDeposits } from '../reorgs/detect.ts'
import type { ReorgRepairs } from '../reorgs/service.ts'
import { haltUnknownPlatformTransfers } from '../restore/detect.ts'
import { findingsRepo } from '../restore/repo.ts'
import {
  type Applied,
  type ApplyContext,
  applyMovements,
  applyParked,
  logApplied,
  parkedMovement,
  prepare,
} from './apply.ts'
import { candidateAddresses, chainOrder, classify, receiptsNeeded } from './classify.ts'
import { fetchRange, fetchReceipts, safeHead } from './fetch.ts'
import { watcherRepo } from './repo.ts'
import { DepositReports } from './reports.ts'
import { type FetchedRange, type ScanResult, WATCH_JOB } from './types.ts'

export type { ScanResult }

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

const LOCK_NAMESPACE = 0x57414c4c // "WALL"
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const message = (err: unknown) => (err instanceof Error ? err.message : String(err))

export class DepositWatcher {
  readonly options: WatcherOptions
  readonly reports: DepositReports
  #serial: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly deps: WatcherDeps,
    options: Partial<WatcherOptions> = {},
  ) {
    this.options = { ...DEFAULT_WATCHER_OPTIONS, ...options }
    this.reports = new DepositReports({ chainId: deps.chain.chainId, clock: deps.clock })
  }

  get chainKey() {
    return String(this.deps.chain.chainId)
  }

  get #ctx(): ApplyContext {
    const { chain, clock, log, jobs, ledger, transactions } = this.deps
    return { chain, clock, log, jobs, ledger, transactions }
  }

  /** The last processed block, or null before the first scan (read in `ex` when given). */
  cursor(ex: Executor = this.deps.database.db): Promise<{ number: bigint; hash: string } | null> {
    return watcherRepo.cursor(ex, this.chainKey)
  }

  /**
   * Starts following the chain at its current confirmed head, unless a cursor exists. Called at
   * start-up so that a fresh installation does not read the chain's whole history.
   */
  async initCursor(): Promise<void> {
    if (await this.cursor()) return
    const block = await this.deps.chain.getBlock(await safeHead(this.deps.chain, this.deps.confirmations))
    if (!block) return
    await watcherRepo.insertCursor(this.deps.database.db, this.chainKey, block, this.deps.clock.now())
  }

  /**
   * Registers a transaction the platform signs from (or to) a custodial address, in the database
   * transaction that stores it before it is broadcast: the watcher then does not take it for an
   * external withdrawal, and credits what it delivers to `creditAccountId` when given.
   */
  async registerOwn(
    ex: Executor,
    input: { txHash: string; from: string; purpose: string; creditAccountId?: string },
  ): Promise<void> {
    await watcherRepo.registerOwn(
      ex,
      {
        chainId: this.chainKey,
        txHash: input.txHash,
        address: input.from,
        purpose: input.purpose,
        creditAccountId: input.creditAccountId ?? null,
      },
      this.deps.clock.now(),
    )
  }

  // ---- the job -------------------------------------------------------------------------------

  /** Registers the job; call `start` once the module is built. */
  register() {
    this.deps.jobs.register(
      WATCH_JOB,
      async () => {
        try {
          await this.scanNow()
        } catch (err) {
          this.deps.log.warn({ err: message(err) }, 'deposit watcher pass failed')
        } finally {
          await this.#schedule(this.deps.clock.now().getTime() + this.options.intervalMs)
        }
      },
      // A scan's own failure is caught above; the queue's retries only cover a renewal that
      // failed (database unreachable) or a run that died. A job that failed for good would end
      // the chain of runs, and nothing would credit deposits until a restart: a high limit.
      // A slot of its own: sends, mail or reports never keep a scan (and so a credit) waiting.
      { maxAttempts: 1000, deleteOnSuccess: true, concurrency: 1 },
    )
  }

  /** The cursor and the first run (the chain or database may be briefly unreachable: logged). */
  async start() {
    try {
      await this.deps.transactions.chainRecordId()
      await this.initCursor()
      await this.#schedule(this.deps.clock.now().getTime())
    } catch (err) {
      this.deps.log.warn({ err: message(err) }, 'deposit watcher not initialised')
    }
  }

  /** Each run schedules the next in the following time slot; the slot in the dedupe key
   * collapses the renewals of several workers (or restarts) into one. */
  async #schedule(at: number) {
    const slot = Math.floor(at / this.options.intervalMs)
    await this.deps.jobs.enqueue(
      this.deps.database.db,
      WATCH_JOB,
      { chainId: this.deps.chain.chainId },
      {
        runAt: new Date(slot * this.options.intervalMs),
        dedupeKey: `${WATCH_JOB}:${this.deps.chain.chainId}:${slot}`,
      },
    )
  }

  /** Asks for a scan as soon as a worker is free (one request is pending at most). */
  async requestScan(): Promise<void> {
    await this.deps.jobs.enqueue(
      this.deps.database.db,
      WATCH_JOB,
      { chainId: this.deps.chain.chainId, requested: true },
      { dedupeKey: `${WATCH_JOB}:${this.deps.chain.chainId}:requested` },
    )
  }

  /**
   * Asks for a scan and waits, at most `timeoutMs`, until the watcher has processed the chain's
   * confirmed head as it is now. True when it has; false when the wait ran out or the chain
   * cannot be read (callers then answer from what the database knows).
   */
  async waitForScan(timeoutMs = this.options.scanWaitMs): Promise<boolean> {
    let target: bigint
    try {
      target = await safeHead(this.deps.chain, this.deps.confirmations)
    } catch (err) {
      this.deps.log.warn({ err: message(err) }, 'chain head unavailable; answering from the database')
      return false
    }
    const reached = async () => ((await this.cursor())?.number ?? -1n) >= target
    if (await reached()) return true
    const deadline = Date.now() + timeoutMs
    let asked = 0
    for (;;) {
      // Asked again now and then: a request taken by a scan already under way may end short of
      // the target, and a finished request makes room for a new one.
      if (Date.now() - asked >= 1000) {
        await this.requestScan()
        asked = Date.now()
      }
      const left = deadline - Date.now()
      if (left <= 0) return false
      await sleep(Math.min(this.options.pollMs, left))
      if (await reached()) return true
    }
  }

  // ---- one pass ------------------------------------------------------------------------------

  /**
   * One pass until the confirmed head (or `maxBlocks` blocks), here and now: what the job runs.
   * Tests and tools call it directly; production code asks the job (`requestScan`). Calls are
   * serialised in this process; a caller waits for a running pass and then scans again.
   */
  scanNow(opts: { maxBlocks?: number } = {}): Promise<ScanResult> {
    const run = this.#serial.then(() => this.#leading(() => this.#pass(opts.maxBlocks)))
    this.#serial = run.catch(() => {})
    return run
  }

  async #leading(fn: () => Promise<Omit<ScanResult, 'leader'>>): Promise<ScanResult> {
    const { database, chain } = this.deps
    if (database.kind === 'pglite') return { leader: true, ...(await fn()) }
    const led = await watcherRepo.whileLeading(database.db, LOCK_NAMESPACE, chain.chainId, fn)
    return led === undefined ? { leader: false, cursor: null, applied: 0 } : { leader: true, ...led }
  }

  async #pass(maxBlocks?: number): Promise<Omit<ScanResult, 'leader'>> {
    const { chain, confirmations } = this.deps
    await this.initCursor()
    let applied = await this.#applyParked()
    let budget = maxBlocks ?? Number.POSITIVE_INFINITY
    let read = false
    let stale = 0
    for (;;) {
      let cursor = await this.cursor()
      if (!cursor) return { cursor: null, applied }
      const safe = await safeHead(chain, confirmations)
      if (safe <= cursor.number || budget <= 0) {
        // Nothing new was read: is the processed block still the chain's?
        if (!read) await this.#checkCursorBlock(cursor)
        return { cursor: cursor.number, applied }
      }
      const span = BigInt(Math.min(this.options.batchBlocks, budget))
      const from = cursor.number + 1n
      const to = safe < from + span - 1n ? safe : from + span - 1n
      // the tokens the range is read with (a coin added meanwhile is in the read or not: never lost)
      const tokens = chain.coins.filter((c) => c.isToken).map((c) => c.reference)
      const range = await fetchRange(chain, from, to)
      read = true
      const parent = range.blocks[0]!.parentHash
      if (parent.toLowerCase() !== cursor.hash.toLowerCase()) {
        await this.#deepReorg(cursor, parent)
        cursor = { number: cursor.number, hash: parent }
      }
      const done = await this.#range(cursor.number, range, tokens)
      if (done === 'stale') {
        // A coin was added that this read did not scan for: take it, and read the range again.
        if (stale++ > 0) throw new Error('a coin added at run time could not be taken by the watcher')
        await this.deps.coins!.reload()
        continue
      }
      stale = 0
      applied += done
      budget -= Number(to - from + 1n)
    }
  }

  async #checkCursorBlock(cursor: { number: bigint; hash: string }) {
    const block = await this.deps.chain.getBlock(cursor.number)
    if (block && block.hash.toLowerCase() !== cursor.hash.toLowerCase())
      await this.#deepReorg(cursor, block.hash)
  }

  /**
   * A processed block was replaced: deposits credited from it may no longer exist on chain, which
   * the ledger cannot undo by itself. Every coin of the chain halts (nothing is credited or sent
   * until an operator resumes it); the deposits of the replaced blocks that the chain no longer
   * has become findings with their value held (looked for before the transaction opens); the
   * watcher follows the chain as it now is, parking what it finds meanwhile.
   */
  async #deepReorg(cursor: { number: bigint; hash: string }, chainHash: string) {
    const { database, chain, clock, halts, log, reorgs, confirmations } = this.deps
    const vanished = await vanishedDeposits(database.db, chain, {
      cursor: cursor.number,
      lookback: this.options.reorgLookbackBlocks,
      safeHead: await safeHead(chain, confirmations),
    })
    const details = {
      chainId: chain.chainId,
      block: cursor.number.toString(),
      processedHash: cursor.hash,
      chainHash,
      vanishedDeposits: vanished.length,
    }
    const now = clock.now()
    const replaced = await database.db.transaction().execute(async (tx) => {
      if (!(await watcherRepo.replaceCursorHash(tx, this.chainKey, cursor, chainHash, now))) return false
      await watcherRepo.audit(tx, 'chain.reorg', details, now)
      for (const c of chain.coins) await halts.halt(tx, { coin: c.reference, reason: 'reorg', details })
      await reorgs?.record(tx, vanished, { chainReorgBlock: details.block })
      return true
    })
    if (replaced)
      log.error(
        details,
        'CHAIN REORG DEEPER THAN CONFIRMATIONS: a processed block was replaced; every coin of the chain is halted until an operator checks the ledger and resumes it (docs/operations.md)',
      )
  }

  /**
   * Reads what a range needs besides its blocks (no database transaction open), then applies it.
   * 'stale' (nothing applied): a coin added at run time is missing from `tokens`, the tokens the
   * range was read with; checked under the cursor's lock, so every range applied after a coin's
   * addition committed has been read with it.
   */
  async #range(cursorAt: bigint, range: FetchedRange, tokens: string[]): Promise<number | 'stale'> {
    const { database, chain, halts, transactions, clock } = this.deps
    const db = database.db
    const custodial = await watcherRepo.custodialByAddresses(db, candidateAddresses(range))
    const hashes = receiptsNeeded(range, custodial)
    const [own, receipts] =
      hashes.length === 0
        ? [new Map(), new Map()]
        : await Promise.all([
            watcherRepo.ownTransactions(db, this.chainKey, hashes),
            fetchReceipts(chain, hashes),
          ])
    const nativeCoin = chain.coins.find((c) => !c.isToken)?.reference ?? null
    const classified = classify({ range, receipts, custodial, own, nativeCoin })
    const prepared = await prepare(this.#ctx, classified.ordered, receipts)
    await transactions.chainRecordId()
    const last = range.blocks[range.blocks.length - 1]!
    const result = await db.transaction().execute(async (tx): Promise<Applied | 'stale' | undefined> => {
      // Someone else applied this range meanwhile: nothing to do.
      if ((await watcherRepo.lockCursor(tx, this.chainKey)) !== cursorAt) return undefined
      if (this.deps.coins && (await this.deps.coins.missing(tx, tokens)).length > 0) return 'stale'
      // The platform's own transactions a restored database does not know halt their coins first,
      // so that they are parked here, never booked as outside withdrawals (../restore/detect.ts).
      const { log } = this.deps
      await haltUnknownPlatformTransfers(
        tx,
        { chainId: this.chainKey, halts, clock, log },
        classified.ordered,
      )
      const halted = await halts.haltedCoins(tx)
      const applied = await applyMovements(tx, this.#ctx, { movements: classified.ordered, halted, prepared })
      await watcherRepo.moveCursor(tx, this.chainKey, last, clock.now())
      return applied
    })
    if (result === 'stale') return result
    logApplied(this.deps.log, this.deps.chain.chainId, result)
    return result?.applied ?? 0
  }

  /** Parked movements of coins that are no longer halted, booked now. */
  async #applyParked(): Promise<number> {
    const { database, halts, transactions } = this.deps
    const halted = await halts.haltedCoins()
    const held = await watcherRepo.held(database.db, this.chainKey, [...halted], this.options.parkedPerPass)
    if (held.length === 0) return 0
    const movements = held.map(parkedMovement).sort(chainOrder)
    const prepared = await prepare(this.#ctx, movements)
    await transactions.chainRecordId()
    const result = await database.db.transaction().execute(async (tx) => {
      const still = await halts.haltedCoins(tx)
      // an unknown platform transfer stays parked until an operator re-attaches it or judges it external
      const unresolved = await findingsRepo.openHashes(tx, this.chainKey)
      const due = movements.filter((m) => !still.has(m.coin) && !unresolved.has(m.txHash))
      return applyParked(tx, this.#ctx, { movements: due, prepared })
    })
    if (result.applied > 0)
      this.deps.log.warn(
        { event: 'parked.applied', count: result.applied },
        'parked chain movements of resumed coins applied',
      )
    logApplied(this.deps.log, this.deps.chain.chainId, result)
    return result.applied
  }
}
