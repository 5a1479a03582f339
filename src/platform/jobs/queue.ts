// Durable background jobs in PostgreSQL. A job is written in the same transaction as the change
// that needs it; workers (any number, in any process) claim ready jobs with FOR UPDATE SKIP LOCKED,
// run them, and retry failures with exponential backoff.
//
// A worker is a pool of slots, not a batch: a job that finishes frees its slot at once and the
// worker claims the next ready job for it, so one slow job never holds back the others. Slots are
// grouped by kind (`pools.ts`): a kind registered with its own `concurrency` runs on slots no
// other kind takes (the deposit watcher always finds one free), the others share `concurrency`.
//
// A claim is a short lease (`leaseMs`, on the database's clock so that workers on several machines
// agree) that the worker renews while the handler runs (`lease.ts`). A worker that dies stops
// renewing, and its jobs are claimed again once their lease lapses, so every handler must be
// idempotent. Each claim counts an attempt, and the attempt number fences the claim: renewals and
// the final write of a run only touch the row while it is still the same claim, so a worker that
// lost its lease can never overwrite what the next claimant did.
import type { Logger } from 'pino'
import { sendAhead } from '../../db/ahead.ts'
import { type Write, write } from '../../db/compose.ts'
import type { Db, Executor } from '../../db/index.ts'
import type { Clock } from '../clock.ts'
import { newId } from '../crypto/ids.ts'
import { keepLease } from './lease.ts'
import { type GroupShare, lateness, type Pool, type PoolPressure, Pools, Signal } from './pools.ts'
import { type JobRow, jobsRepo } from './repo.ts'
import {
  type EnqueueOptions,
  type JobContext,
  PermanentJobError,
  type Registered,
  type RegisterOptions,
} from './types.ts'

export type { JobRow } from './repo.ts'
export type { EnqueueOptions, JobContext, JobHandler, RegisterOptions } from './types.ts'
export { PermanentJobError } from './types.ts'

/** the shortest time between two claims of a pool that found too few ready jobs, between ticks */
export const CLAIM_GAP_MS = 20

/**
 * The payload type of every job kind. A module declares its kinds by merging into this interface
 * (`declare module '.../platform/jobs/queue.ts' { interface JobPayloads { 'x.done': XDone } }`);
 * `register` and `enqueue` only take declared kinds, each checked against its payload.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in the modules
export interface JobPayloads {}
/** A declared job kind. */
export type JobKind = keyof JobPayloads & string
/** The payload of a job kind, as declared in `JobPayloads`. */
export type PayloadOf<K extends JobKind> = JobPayloads[K]

export class JobQueue {
  readonly #handlers = new Map<string, Registered>()
  readonly #pools = new Pools()
  /** fires when a run ends, a job is enqueued here, or the worker is stopped */
  readonly #signal = new Signal()
  readonly #inFlight = new Set<Promise<void>>()
  #loop: Promise<void> | undefined
  #stopped = true
  #yieldTo: (() => PoolPressure | undefined) | undefined
  #heldBack = 0
  /** how long a claim lasts without renewal: a job whose worker died is claimed again after it */
  leaseMs = 15_000
  /** how often a running job's lease is renewed; several renewals fit in one lease */
  heartbeatMs = 5_000
  /**
   * Giving way to requests (`yieldTo`), how long after it was due a job may start before its group
   * of slots takes more of the pool while requests wait (`Pools.claimed`).
   */
  lateAfterMs = 5_000

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  /**
   * Makes the worker loop give way to the requests of its process for `pool`'s connections: while
   * a request waits for one, each group of slots runs no more jobs than its share (one, so payouts,
   * deposits and the rest never stop, and more while its jobs start over `lateAfterMs` late), and
   * otherwise the jobs keep a fifth of the pool free (`roomBesideRequests`). For a process that
   * answers requests and runs jobs.
   */
  yieldTo(pool: () => PoolPressure | undefined) {
    this.#yieldTo = pool
  }

  /** times the worker loop started fewer jobs than it had free slots for, to give way to requests */
  get heldBack() {
    return this.#heldBack
  }

  /** each group of slots (`shared` for the common ones) and how many jobs it may run while a
   * request waits for a connection (`yieldTo`) */
  get shares(): GroupShare[] {
    return this.#pools.shares()
  }

  /** Slots shared by the kinds without a `concurrency` of their own, in this process. */
  get concurrency() {
    return this.#pools.sharedSize
  }
  set concurrency(n: number) {
    this.#pools.sharedSize = n
  }

  register<K extends JobKind>(
    kind: K,
    handler: (payload: PayloadOf<K>, ctx: JobContext) => Promise<void>,
    opts: RegisterOptions = {},
  ) {
    // One module owns each kind: a second handler would silently take the first one's jobs.
    if (this.#handlers.has(kind)) throw new Error(`job kind ${kind} has a handler already`)
    this.#handlers.set(kind, {
      handler,
      maxAttempts: opts.maxAttempts ?? 5,
      baseDelayMs: opts.baseDelayMs ?? 2000,
      deleteOnSuccess: opts.deleteOnSuccess ?? false,
    })
    this.#pools.assign(kind, opts.concurrency)
  }

  /** The kinds with a handler in this process. */
  get kinds(): string[] {
    return [...this.#handlers.keys()]
  }

  /** The kinds among `kinds` that have no handler (checked once every module is built). */
  unhandled(kinds: readonly string[]): string[] {
    return kinds.filter((k) => !this.#handlers.has(k))
  }

  async enqueue<K extends JobKind>(
    ex: Executor,
    kind: K,
    payload: PayloadOf<K>,
    opts: EnqueueOptions = {},
  ): Promise<string> {
    const { id, insert } = this.#insert(ex, kind, payload, opts)
    // Sent ahead: in a transaction it travels with the next statement (src/db/ahead.ts). A job
    // refused as a duplicate (its dedupe key taken) answers the id it would have had, as before.
    await sendAhead(ex, insert)
    this.poke()
    return id
  }

  /**
   * `enqueue` written by the caller's own statement (`withWrites`, src/db/compose.ts): the job's
   * insert, not executed.
   */
  enqueueWrite<K extends JobKind>(
    ex: Executor,
    kind: K,
    payload: PayloadOf<K>,
    opts: EnqueueOptions = {},
  ): Write {
    const { insert } = this.#insert(ex, kind, payload, opts)
    this.poke()
    return write(insert)
  }

  /**
   * Runs each of `jobs` by `runAt`: the job the caller queued before under `current` is made due
   * then if it is still queued; otherwise (it is running or done) a job is written under
   * `dedupeKey`, or, without one, nothing (the running job will do). One statement, sent ahead; a
   * job's later run time is not left behind as a second job.
   */
  async hasten<K extends JobKind>(
    ex: Executor,
    jobs: readonly { kind: K; payload: PayloadOf<K>; dedupeKey?: string; current: string }[],
    runAt: Date,
  ): Promise<void> {
    if (jobs.length === 0) return
    const rows = jobs.map((j) => ({
      id: newId(),
      kind: j.kind,
      payload: j.payload,
      maxAttempts: this.#handlers.get(j.kind)?.maxAttempts ?? 5,
      dedupeKey: j.dedupeKey,
      current: j.current,
    }))
    await sendAhead(ex, jobsRepo.hastenOrInsert(rows, runAt))
    this.poke()
  }

  #insert<K extends JobKind>(ex: Executor, kind: K, payload: PayloadOf<K>, opts: EnqueueOptions) {
    const id = newId()
    const maxAttempts = opts.maxAttempts ?? this.#handlers.get(kind)?.maxAttempts ?? 5
    const insert = jobsRepo.insert(ex, {
      id,
      kind,
      payload,
      runAt: opts.runAt ?? this.clock.now(),
      maxAttempts,
      dedupeKey: opts.dedupeKey ?? null,
    })
    return { id, insert }
  }

  /**
   * Claims up to `limit` ready jobs of `kinds`: queued and due, and running with a lapsed lease
   * (a dead worker's) when the worker loop's `pool` last looked for those a while ago (a third of a
   * lease, at most a second), or always without a pool.
   */
  #claim(kinds: string[], limit: number, pool?: Pool): Promise<JobRow[]> {
    if (kinds.length === 0 || limit <= 0) return Promise.resolve([])
    const now = Date.now()
    const lapsed =
      !pool || now - (pool.lapsedAt ?? Number.NEGATIVE_INFINITY) >= Math.min(1000, this.leaseMs / 3)
    if (pool && lapsed) pool.lapsedAt = now
    return jobsRepo.claim(this.db, kinds, limit, this.leaseMs, this.clock.now(), { lapsed })
  }

  /** Runs a claimed job on a slot of `pool`; the slot is free again, and the worker told, when it ends. */
  #launch(pool: Pool, job: JobRow): Promise<void> {
    const run = this.#run(job)
      .catch((err) => {
        this.log.error({ jobId: job.id, kind: job.kind, err }, 'job outcome could not be recorded')
      })
      .finally(() => {
        pool.busy--
        this.#inFlight.delete(run)
        this.#signal.fire()
      })
    this.#inFlight.add(run)
    return run
  }

  /**
   * Claims a ready job for every free slot (each pool for its own kinds) and starts them; returns
   * how many it started. In the worker loop (`loop`), a claim made while the loop is being stopped
   * is handed back, and jobs with a lapsed lease are looked for now and then (elsewhere, always).
   */
  async #fill(loop: boolean, throttled = false): Promise<number> {
    let started = 0
    const now = Date.now()
    for (const pool of this.#pools.list()) {
      const slots = pool.size - pool.busy
      const free = loop && this.#yieldTo ? this.#pools.startable(pool, this.#yieldTo()) : slots
      if (free < slots) {
        // looked at again soon: a request's wait is short (a job that ends wakes the loop too)
        this.#heldBack++
        this.#signal.fireIn(CLAIM_GAP_MS)
      }
      if (free <= 0) continue
      // A pool whose last claim found fewer ready jobs than it asked for is asked again at most
      // every CLAIM_GAP_MS when a run's end or an enqueue wakes the worker (a wake-up at the gap's
      // end makes sure it is asked): every job that ends no longer costs a claim per pool.
      const since = pool.shortAt === undefined ? Number.POSITIVE_INFINITY : now - pool.shortAt
      if (throttled && since < CLAIM_GAP_MS) {
        this.#signal.fireIn(CLAIM_GAP_MS - since)
        continue
      }
      // The free slots are reserved while the claim is under way (a concurrent fill sees them taken).
      pool.busy += free
      let jobs: JobRow[] = []
      try {
        jobs = await this.#claim(pool.kinds, free, loop ? pool : undefined)
      } finally {
        pool.busy -= free - jobs.length
      }
      pool.shortAt = jobs.length < free ? Date.now() : undefined
      if (loop && this.#yieldTo)
        this.#pools.claimed(pool, {
          asked: free,
          got: jobs.length,
          lateMs: lateness(jobs, this.clock.now()),
          limitMs: this.lateAfterMs,
        })
      if (loop && this.#stopped) {
        await this.#handBack(jobs)
        pool.busy -= jobs.length
        continue
      }
      for (const job of jobs) this.#launch(pool, job)
      started += jobs.length
    }
    return started
  }

  /** Gives claims back unrun: queued again, the attempt not counted. */
  async #handBack(jobs: JobRow[]) {
    for (const job of jobs) await jobsRepo.handBack(this.db, job)
  }

  /**
   * Claims up to `limit` ready jobs of any kind at once and runs them; resolves when all of them
   * ended, with how many ran (tools and tests; the worker loop and `runUntilIdle` use the pool).
   */
  async runOnce(limit = 10): Promise<number> {
    const jobs = await this.#claim([...this.#handlers.keys()], limit)
    await Promise.all(
      jobs.map((job) => {
        const pool = this.#pools.of(job.kind)
        pool.busy++
        return this.#launch(pool, job)
      }),
    )
    return jobs.length
  }

  async #run(job: JobRow) {
    const reg = this.#handlers.get(job.kind)!
    const lastAttempt = job.attempts >= job.maxAttempts
    const lease = keepLease(this.db, this.log, job, { leaseMs: this.leaseMs, heartbeatMs: this.heartbeatMs })
    const about = { jobId: job.id, kind: job.kind, attempt: job.attempts }
    const success = () => ({ delete: reg.deleteOnSuccess, now: this.clock.now() })
    let finishedIn = false
    const finishIn = async (tx: Executor) => {
      // No renewal may wait on the row this transaction is about to lock.
      lease.halt()
      await sendAhead(tx, jobsRepo.succeededStatement(tx, job, success()))
      finishedIn = true
    }
    try {
      await reg.handler(job.payload, { job, lastAttempt, finishIn })
      await lease.stop()
      if (finishedIn) return
      const recorded = await jobsRepo.succeeded(this.db, job, success())
      if (!recorded) this.log.warn(about, 'job finished after its lease was lost; outcome not recorded')
    } catch (err) {
      await lease.stop()
      const message = err instanceof Error ? err.message : String(err)
      const final = lastAttempt || err instanceof PermanentJobError
      const delay = reg.baseDelayMs * 2 ** Math.min(job.attempts - 1, 10)
      this.log.warn({ ...about, final, err: message }, 'job failed')
      const now = this.clock.now()
      const retryAt = new Date(now.getTime() + delay)
      const recorded = await jobsRepo.failed(this.db, job, { final, message, retryAt, now })
      if (!recorded)
        this.log.warn(
          about,
          finishedIn
            ? 'job failed after its last transaction recorded it done; outcome kept'
            : 'job failed after its lease was lost; outcome not recorded',
        )
    }
  }

  /**
   * Ends the lease of every running job now, so that they are claimed again at once. Only for a
   * database that belongs to this process alone (the embedded one): a job still marked running
   * there was claimed by a run of the process that died. Returns how many there were.
   */
  releaseAbandoned(): Promise<number> {
    return jobsRepo.releaseRunning(this.db)
  }

  /**
   * Runs ready jobs on the pool until none is ready and none runs (tests and one-shot tools): each
   * slot that frees takes the next ready job, and jobs the runs enqueue are run too. Stops claiming
   * after `maxJobs` (a job that re-enqueues itself due at once would never let it end).
   */
  async runUntilIdle(maxJobs = 20_000): Promise<void> {
    let total = 0
    for (;;) {
      const seen = this.#signal.generation
      const started = await this.#fill(false)
      total += started
      // Idle only when nothing happened during the fill either: a job that ended while the fill
      // skipped its full pool (or one enqueued meanwhile) may have left a ready job behind.
      if (started === 0 && this.#inFlight.size === 0 && this.#signal.generation === seen) return
      if (total >= maxJobs) {
        this.log.warn({ jobs: total }, 'runUntilIdle: stopped claiming after its job limit')
        await Promise.all(this.#inFlight)
        return
      }
      await this.#signal.since(seen)
    }
  }

  /**
   * Starts the worker loop: claims a ready job for each free slot whenever a slot frees or a job is
   * enqueued in this process, and every `intervalMs` for jobs other processes enqueued or that
   * became due.
   */
  start(intervalMs = 250) {
    if (this.#loop) return
    this.#stopped = false
    this.#loop = (async () => {
      let fullAt = Number.NEGATIVE_INFINITY
      while (!this.#stopped) {
        const seen = this.#signal.generation
        // Every pool is asked at least once per interval; in between, pools found short recently
        // are asked at most every CLAIM_GAP_MS.
        const full = Date.now() - fullAt >= intervalMs
        if (full) fullAt = Date.now()
        try {
          await this.#fill(true, !full)
        } catch (err) {
          this.log.error({ err }, 'job worker loop failed')
        }
        if (this.#stopped) break
        await this.#signal.since(seen, intervalMs)
      }
      await Promise.all(this.#inFlight)
    })()
  }

  /** Wakes an idle worker loop now instead of at its next tick. */
  poke() {
    this.#signal.fire()
  }

  /** Stops claiming jobs and resolves when the jobs this process is running have finished. */
  async stop() {
    this.#stopped = true
    this.poke()
    await this.#loop
    this.#loop = undefined
    this.#signal.cancelTimer()
  }
}
