// The shapes a job kind's module sees of the queue (queue.ts): the context of a run, the options of
// a kind and of an enqueue, and the failure that is not retried.
import type { Executor } from '../../db/index.ts'
import type { JobRow } from './repo.ts'

export interface JobContext {
  job: JobRow
  /** true when a failure of this run will not be retried */
  lastAttempt: boolean
  /**
   * Records the run's success in `tx`, the run's last transaction (sent ahead: no round trip of its
   * own): the job is done exactly when that transaction commits, and the queue writes nothing after
   * the handler returns. Only for a handler that ends with that transaction, and throws when it
   * fails (a rolled-back `tx` leaves the run to be recorded as failed).
   */
  finishIn(tx: Executor): Promise<void>
}

export type JobHandler = (payload: any, ctx: JobContext) => Promise<void>

export interface RegisterOptions {
  maxAttempts?: number
  baseDelayMs?: number
  deleteOnSuccess?: boolean
  /**
   * Slots of the kind's own in each worker: at most this many jobs of the kind run at once in one
   * process, on slots no other kind takes, so the kind is never starved by a busy one (nor starves
   * it). Without it the kind shares the worker's common slots (`JobQueue.concurrency`).
   */
  concurrency?: number
}

export interface Registered {
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
