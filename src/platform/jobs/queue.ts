// Durable background jobs in PostgreSQL. A job is written in the same transaction as the change
// that needs it; workers (any number, in any process) claim ready jobs with FOR UPDATE SKIP LOCKED,
// run them, and retry failures with exponential backoff.
//
// A claim is a short lease (`leaseMs`, on the database's clock so that workers on several machines
// agree) that the worker renews while the handler runs. A worker that dies stops renewing, and its
// jobs are claimed again once their lease lapses, so every handler must be idempotent. Each claim
// counts an attempt, and the attempt number fences the claim: renewals and the final write of a
// run only touch the row while it is still the same claim, so a worker that lost its lease can
// never overwrite what the next claimant did.
import { type ExpressionBuilder, sql } from 'kysely'
import type { Logger } from 'pino'
import type { Db, Executor } from '../../db/index.ts'
import type { DB } from '../../db/types.ts'
import type { Clock } from '../clock.ts'
import { newId } from '../crypto/ids.ts'

export interface JobRow {
  id: string
  kind: string
  payload: any
  attempts: number
  maxAttempts: number
}

export interface JobContext {
  job: JobRow
  /** true when a failure of this run will not be retried */
  lastAttempt: boolean
}

export type JobHandler = (payload: any, ctx: JobContext) => Promise<void>

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

export interface RegisterOptions {
  maxAttempts?: number
  baseDelayMs?: number
  deleteOnSuccess?: boolean
}

interface Registered {
  handler: JobHandler
  maxAttempts: number
  baseDelayMs: number
  /** delete the row on success (mail jobs carry codes and need not be kept) */
  deleteOnSuccess: boolean
}

/** Thrown by a handler for a failure that retrying cannot fix. */
export class PermanentJobError extends Error {}

export interface EnqueueOptions {
  runAt?: Date
  dedupeKey?: string
  maxAttempts?: number
}

/** A claimed job's lease, renewed in the background while its handler runs. */
interface Lease {
  /** stops renewing; resolves once a renewal in flight has finished */
  stop(): Promise<void>
}

export class JobQueue {
  readonly #handlers = new Map<string, Registered>()
  #timer: NodeJS.Timeout | undefined
  #wake: (() => void) | undefined
  #loop: Promise<void> | undefined
  #stopped = true
  /** how long a claim lasts without renewal: a job whose worker died is claimed again after it */
  leaseMs = 15_000
  /** how often a running job's lease is renewed; several renewals fit in one lease */
  heartbeatMs = 5_000

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  register<K extends JobKind>(
    kind: K,
    handler: (payload: PayloadOf<K>, ctx: JobContext) => Promise<void>,
    opts: RegisterOptions = {},
  ) {
    this.#handlers.set(kind, {
      handler,
      maxAttempts: opts.maxAttempts ?? 5,
      baseDelayMs: opts.baseDelayMs ?? 2000,
      deleteOnSuccess: opts.deleteOnSuccess ?? false,
    })
  }

  async enqueue<K extends JobKind>(
    ex: Executor,
    kind: K,
    payload: PayloadOf<K>,
    opts: EnqueueOptions = {},
  ): Promise<string> {
    const id = newId()
    const maxAttempts = opts.maxAttempts ?? this.#handlers.get(kind)?.maxAttempts ?? 5
    const inserted = await ex
      .insertInto('jobs')
      .values({
        id,
        kind,
        payload: JSON.stringify(payload),
        runAt: opts.runAt ?? this.clock.now(),
        maxAttempts,
        dedupeKey: opts.dedupeKey ?? null,
      })
      .onConflict((oc) => oc.column('dedupeKey').where('dedupeKey', 'is not', null).doNothing())
      .returning('id')
      .executeTakeFirst()
    this.poke()
    return inserted?.id ?? id
  }

  /** The end of a lease taken now, on the database's clock. */
  #leaseEnd() {
    return sql<Date>`now() + cast(${`${Math.round(this.leaseMs)} milliseconds`} as interval)`
  }

  /** Claims up to `limit` ready jobs (queued and due, or running with a lapsed lease) and runs
   * them; returns how many ran. */
  async runOnce(limit = 10): Promise<number> {
    const now = this.clock.now()
    const kinds = [...this.#handlers.keys()]
    if (kinds.length === 0) return 0
    const claimed = await this.db
      .updateTable('jobs')
      .set({ status: 'running', attempts: sql`attempts + 1`, lockedUntil: this.#leaseEnd(), updatedAt: now })
      .where(
        'id',
        'in',
        this.db
          .selectFrom('jobs')
          .select('id')
          .where('kind', 'in', kinds)
          .where((eb) =>
            eb.or([
              eb.and([eb('status', '=', 'queued'), eb('runAt', '<=', now)]),
              eb.and([eb('status', '=', 'running'), eb('lockedUntil', '<', sql<Date>`now()`)]),
            ]),
          )
          .orderBy('runAt')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returning(['id', 'kind', 'payload', 'attempts', 'maxAttempts'])
      .execute()
    await Promise.all(claimed.map((job) => this.#run(job)))
    return claimed.length
  }

  /** This claim of the job: the row as long as nobody claimed it again since. */
  #ours(job: JobRow) {
    return (eb: ExpressionBuilder<DB, 'jobs'>) =>
      eb.and([eb('id', '=', job.id), eb('status', '=', 'running'), eb('attempts', '=', job.attempts)])
  }

  /** Renews the lease every `heartbeatMs` until stopped. */
  #keepLease(job: JobRow): Lease {
    let held = true
    let stopped = false
    let renewal: Promise<void> | undefined
    let renewedAt = Date.now()
    let expiredLogged = false
    const about = { jobId: job.id, kind: job.kind, attempt: job.attempts }
    const renew = async () => {
      try {
        const res = await this.db
          .updateTable('jobs')
          .set({ lockedUntil: this.#leaseEnd() })
          .where(this.#ours(job))
          .executeTakeFirst()
        if (Number(res.numUpdatedRows) > 0) {
          renewedAt = Date.now()
          return
        }
        held = false
        clearInterval(timer)
        this.log.error(about, 'job lease lost: the job was claimed again while this worker still ran it')
      } catch (err) {
        const expired = Date.now() - renewedAt >= this.leaseMs
        const detail = { ...about, err: err instanceof Error ? err.message : String(err) }
        if (!expired) this.log.warn(detail, 'job lease renewal failed; retrying')
        else if (!expiredLogged) {
          expiredLogged = true
          this.log.error(
            detail,
            'job lease expired: renewals failed, another worker may claim the job while it still runs',
          )
        }
      }
    }
    const timer = setInterval(() => {
      if (renewal || !held || stopped) return
      renewal = renew().finally(() => {
        renewal = undefined
      })
    }, this.heartbeatMs)
    timer.unref()
    return {
      async stop() {
        stopped = true
        clearInterval(timer)
        await renewal
      },
    }
  }

  async #run(job: JobRow) {
    const reg = this.#handlers.get(job.kind)!
    const lastAttempt = job.attempts >= job.maxAttempts
    const lease = this.#keepLease(job)
    const about = { jobId: job.id, kind: job.kind, attempt: job.attempts }
    try {
      await reg.handler(job.payload, { job, lastAttempt })
      await lease.stop()
      const res = reg.deleteOnSuccess
        ? await this.db.deleteFrom('jobs').where(this.#ours(job)).executeTakeFirst()
        : await this.db
            .updateTable('jobs')
            .set({ status: 'done', lockedUntil: null, updatedAt: this.clock.now() })
            .where(this.#ours(job))
            .executeTakeFirst()
      const changed = 'numDeletedRows' in res ? res.numDeletedRows : res.numUpdatedRows
      if (Number(changed) === 0)
        this.log.warn(about, 'job finished after its lease was lost; outcome not recorded')
    } catch (err) {
      await lease.stop()
      const message = err instanceof Error ? err.message : String(err)
      const final = lastAttempt || err instanceof PermanentJobError
      const delay = reg.baseDelayMs * 2 ** Math.min(job.attempts - 1, 10)
      this.log.warn({ ...about, final, err: message }, 'job failed')
      const res = await this.db
        .updateTable('jobs')
        .set({
          status: final ? 'failed' : 'queued',
          lastError: message.slice(0, 2000),
          runAt: new Date(this.clock.now().getTime() + delay),
          lockedUntil: null,
          updatedAt: this.clock.now(),
        })
        .where(this.#ours(job))
        .executeTakeFirst()
      if (Number(res.numUpdatedRows) === 0)
        this.log.warn(about, 'job failed after its lease was lost; outcome not recorded')
    }
  }

  /**
   * Ends the lease of every running job now, so that they are claimed again at once. Only for a
   * database that belongs to this process alone (the embedded one): a job still marked running
   * there was claimed by a run of the process that died. Returns how many there were.
   */
  async releaseAbandoned(): Promise<number> {
    const res = await this.db
      .updateTable('jobs')
      .set({ lockedUntil: sql<Date>`now() - interval '1 second'` })
      .where('status', '=', 'running')
      .executeTakeFirst()
    return Number(res.numUpdatedRows)
  }

  /** Runs ready jobs until none is left (tests and one-shot tools). */
  async runUntilIdle(maxRounds = 1000): Promise<void> {
    for (let i = 0; i < maxRounds; i++) {
      if ((await this.runOnce(20)) === 0) return
    }
  }

  /** Starts the worker loop: claims ready jobs every `intervalMs` (at once when poked). */
  start(intervalMs = 250) {
    if (this.#loop) return
    this.#stopped = false
    this.#loop = (async () => {
      while (!this.#stopped) {
        try {
          for (let round = 0; round < 10 && !this.#stopped; round++) {
            if ((await this.runOnce(20)) === 0) break
          }
        } catch (err) {
          this.log.error({ err }, 'job worker loop failed')
        }
        if (this.#stopped) break
        await new Promise<void>((resolve) => {
          this.#wake = resolve
          this.#timer = setTimeout(resolve, intervalMs)
        })
      }
    })()
  }

  /** Wakes an idle worker loop now instead of at its next tick. */
  poke() {
    if (this.#timer) clearTimeout(this.#timer)
    this.#wake?.()
  }

  /** Stops claiming jobs and resolves when the jobs this process is running have finished. */
  async stop() {
    this.#stopped = true
    this.poke()
    await this.#loop
    this.#loop = undefined
  }
}
