// The deposit watcher's one entry point: the `wallet.watch` job. It follows the chain from a
// stored cursor, a block range at a time (fetch → classify → apply), so that what moved at
// custodial addresses becomes ledger transfers and transaction records exactly once. The job
// renews itself every `intervalMs`; HTTP routes and other jobs that need fresh chain state ask
// for a scan by enqueuing one (`requestScan`, `waitForScan`) instead of scanning themselves.
//
// - One leader per chain: a session advisory lock on a dedicated PostgreSQL connection; the
//   embedded database belongs to one process, which serialises its scans in memory. The cursor
//   row is also compared-and-set, so an overlapping scan can never apply a range twice.
// - One pass (pass.ts) reads ranges from the cursor; a processed block that the chain replaced
//   halts every coin of the chain and parks what is found until an operator resumes the coins
//   (docs/operations.md); parked movements are booked once their coin resumes (parked.ts).
import type { Executor } from '../../../db/index.ts'
import { safeHead } from './fetch.ts'
import { DEFAULT_WATCHER_OPTIONS, type WatcherDeps, type WatcherOptions } from './options.ts'
import { WatcherPass } from './pass.ts'
import { watcherRepo } from './repo.ts'
import { DepositReports } from './reports.ts'
import { type ScanResult, WATCH_JOB } from './types.ts'

export {
  DEFAULT_WATCHER_OPTIONS,
  type WatchedCoins,
  type WatcherDeps,
  type WatcherOptions,
} from './options.ts'
export type { ScanResult }

const LOCK_NAMESPACE = 0x57414c4c // "WALL"
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const message = (err: unknown) => (err instanceof Error ? err.message : String(err))

export class DepositWatcher {
  readonly options: WatcherOptions
  readonly reports: DepositReports
  readonly #pass: WatcherPass
  #serial: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly deps: WatcherDeps,
    options: Partial<WatcherOptions> = {},
  ) {
    this.options = { ...DEFAULT_WATCHER_OPTIONS, ...options }
    this.reports = new DepositReports({ chainId: deps.chain.chainId, clock: deps.clock })
    this.#pass = new WatcherPass(deps, this.options)
  }

  get chainKey() {
    return String(this.deps.chain.chainId)
  }

  /** The last processed block, or null before the first scan (read in `ex` when given). */
  cursor(ex: Executor = this.deps.database.db): Promise<{ number: bigint; hash: string } | null> {
    return this.#pass.cursor(ex)
  }

  /**
   * Starts following the chain at its current confirmed head, unless a cursor exists. Called at
   * start-up so that a fresh installation does not read the chain's whole history.
   */
  initCursor(): Promise<void> {
    return this.#pass.initCursor()
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
    const run = this.#serial.then(() => this.#leading(() => this.#pass.run(opts.maxBlocks)))
    this.#serial = run.catch(() => {})
    return run
  }

  async #leading(fn: () => Promise<Omit<ScanResult, 'leader'>>): Promise<ScanResult> {
    const { database, chain } = this.deps
    if (database.kind === 'pglite') return { leader: true, ...(await fn()) }
    const led = await watcherRepo.whileLeading(database.db, LOCK_NAMESPACE, chain.chainId, fn)
    return led === undefined ? { leader: false, cursor: null, applied: 0 } : { leader: true, ...led }
  }
}
