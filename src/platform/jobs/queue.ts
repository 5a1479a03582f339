// Durable background jobs in PostgreSQL. A job is written in the same transaction as the change
// that needs it; workers (any number, in any process) claim ready jobs with FOR UPDATE SKIP LOCKED,
// run them, and retry failures with exponential backoff. A job whose worker died is claimed again
// once its lock expires, so every handler must be idempotent.
import { sql } from 'kysely'
import type { Logger } from 'pino'
import type { Db, Executor } from '../../db/index.ts'
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

export class JobQueue {
  readonly #handlers = new Map<string, Registered>()
  #timer: NodeJS.Timeout | undefined
  #wake: (() => void) | undefined
  #loop: Promise<void> | undefined
  #stopped = true
  lockMs = 5 * 60 * 1000

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  register(
    kind: string,
    handler: JobHandler,
    opts: { maxAttempts?: number; baseDelayMs?: number; deleteOnSuccess?: boolean } = {},
  ) {
    this.#handlers.set(kind, {
      handler,
      maxAttempts: opts.maxAttempts ?? 5,
      baseDelayMs: opts.baseDelayMs ?? 2000,
      deleteOnSuccess: opts.deleteOnSuccess ?? false,
    })
  }

  async enqueue(ex: Executor, kind: string, payload: unknown, opts: EnqueueOptions = {}): Promise<string> {
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

  /** Claims up to `limit` ready jobs and runs them; returns how many ran. */
  async runOnce(limit = 10): Promise<number> {
    const now = this.clock.now()
    const lockedUntil = new Date(now.getTime() + this.lockMs)
    const kinds = [...this.#handlers.keys()]
    if (kinds.length === 0) return 0
    const claimed = await this.db
      .updateTable('jobs')
      .set({ status: 'running', attempts: sql`attempts + 1`, lockedUntil, updatedAt: now })
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
              eb.and([eb('status', '=', 'running'), eb('lockedUntil', '<', now)]),
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

  async #run(job: JobRow) {
    const reg = this.#handlers.get(job.kind)!
    const lastAttempt = job.attempts >= job.maxAttempts
    try {
      await reg.handler(job.payload, { job, lastAttempt })
      if (reg.deleteOnSuccess) await this.db.deleteFrom('jobs').where('id', '=', job.id).execute()
      else
        await this.db
          .updateTable('jobs')
          .set({ status: 'done', lockedUntil: null, updatedAt: this.clock.now() })
          .where('id', '=', job.id)
          .execute()
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      const final = lastAttempt || err instanceof PermanentJobError
      const delay = reg.baseDelayMs * 2 ** Math.min(job.attempts - 1, 10)
      this.log.warn(
        { jobId: job.id, kind: job.kind, attempt: job.attempts, final, err: message },
        'job failed',
      )
      await this.db
        .updateTable('jobs')
        .set({
          status: final ? 'failed' : 'queued',
          lastError: message.slice(0, 2000),
          runAt: new Date(this.clock.now().getTime() + delay),
          lockedUntil: null,
          updatedAt: this.clock.now(),
        })
        .where('id', '=', job.id)
        .execute()
    }
  }

  /** Runs ready jobs until none is left (tests and one-shot tools). */
  async runUntilIdle(maxRounds = 1000): Promise<void> {
    for (let i = 0; i < maxRounds; i++) {
      if ((await this.runOnce(20)) === 0) return
    }
  }

  start(intervalMs = 250) {
    if (this.#loop) return
    this.#stopped = false
    this.#loop = (async () => {
      while (!this.#stopped) {
        try {
          await this.runUntilIdle(10)
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

  async stop() {
    this.#stopped = true
    this.poke()
    await this.#loop
    this.#loop = undefined
  }
}
