// The crash-safe sender of outgoing chain transfers (`services.outgoing`), used by withdrawals,
// escrow payouts and gas top-ups. Callers enqueue an intent in their own transaction
// (`enqueue.ts`); the `outgoing.send` job runs it (`runner.ts`) and settles it once (`outcome.ts`),
// reporting each event to the caller's handlers through jobs (`report.ts`).
import type { Write } from '../../../db/compose.ts'
import type { Executor, Tx } from '../../../db/index.ts'
import type { OutgoingStatus } from '../../../db/tables/withdrawals.ts'
import type { JobContext, JobQueue } from '../../../platform/jobs/queue.ts'
import { Kept } from '../../../platform/kept.ts'
import { Turns } from '../../../platform/lanes.ts'
import { enqueueTransfer, transferWrites } from './enqueue.ts'
import { type OutcomeHandlers, TRANSFER_ATTEMPT_FAILED, TRANSFER_STARTED } from './events.ts'
import { OutgoingOperations } from './operator.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import { registerReportJobs } from './report.ts'
import { runTransfer } from './runner.ts'
import {
  type CrashPoint,
  DEFAULT_SENDER_OPTIONS,
  type EnqueueTransfer,
  OUTGOING_JOB,
  type OutgoingView,
  type SenderContext,
  type SenderDeps,
  type SenderOptions,
  TOPUP_JOB,
  TRANSFER_PURPOSES,
  type TransferPurpose,
  viewOf,
} from './types.ts'

export class OutgoingSender implements SenderContext {
  readonly #handlers = new Map<string, OutcomeHandlers>()
  /** ledger account ids it books to, kept once a transaction that found them committed (at most 100,000) */
  readonly accountIds = new Kept<string>(100_000)
  readonly turns = new Turns()
  readonly options: SenderOptions
  /** what operators may do with transfers (lists, run now, replace now, cancel) */
  readonly operations: OutgoingOperations = new OutgoingOperations(this)
  constructor(
    readonly deps: SenderDeps,
    options: Partial<SenderOptions> = {},
  ) {
    this.options = { ...DEFAULT_SENDER_OPTIONS, ...options }
  }

  get chainKey() {
    return String(this.deps.chain.chainId)
  }

  /**
   * Registers the outcome handlers of a purpose (once, at start-up, by the module that enqueues
   * transfers of that purpose). They run from the report jobs, each in its own transaction.
   */
  handle(purpose: TransferPurpose, handlers: OutcomeHandlers) {
    if (this.#handlers.has(purpose)) throw new Error(`outcome handlers of ${purpose} are registered already`)
    this.#handlers.set(purpose, handlers)
  }

  /** The purposes no module has handed handlers for (checked once every module is built). */
  unhandledPurposes(): TransferPurpose[] {
    return TRANSFER_PURPOSES.filter((p) => !this.#handlers.has(p))
  }

  /** Registers the jobs that send transfers and report their events. */
  registerJobs(jobs: JobQueue) {
    // Each run is one attempt; the sender schedules its own retries. The queue's retries only
    // cover a run that died (crash, lost database): a high limit, so a transfer is never dropped.
    // Sends have slots of their own: a slow node holds up other sends at most, never the rest.
    jobs.register(OUTGOING_JOB, (payload, ctx) => this.run(payload.id, ctx), {
      maxAttempts: 1000,
      baseDelayMs: 2000,
      concurrency: this.options.concurrency,
    })
    // Gas top-ups on slots of their own: the transfers that wait for them never hold them up.
    jobs.register(TOPUP_JOB, (payload, ctx) => this.run(payload.id, ctx), {
      maxAttempts: 1000,
      baseDelayMs: 2000,
      concurrency: this.options.topUpConcurrency,
    })
    registerReportJobs(this, jobs, (purpose) => this.#handlers.get(purpose))
  }

  /**
   * Queues a transfer inside the caller's transaction (with the change that needs it): nothing
   * happens unless that transaction commits. The same `key` returns the first transfer's id.
   */
  enqueue(tx: Tx, input: EnqueueTransfer): Promise<{ id: string; replayed: boolean }> {
    return enqueueTransfer(this, tx, input)
  }

  /**
   * `enqueue` for a transfer whose key is new by construction (it names a record the caller is
   * creating), written by the caller's own statement with its record (see transferWrites).
   */
  enqueueWrites(tx: Tx, input: EnqueueTransfer): Promise<{ id: string; writes: Write[] }> {
    return transferWrites(this, tx, input)
  }

  /** A transfer as handlers see it (for callers' reads). */
  async get(ex: Executor, id: string): Promise<OutgoingView | undefined> {
    const row = await this.load(ex, id)
    return row && viewOf(row)
  }

  /** The status of each transfer in `ids` that exists. */
  async statuses(ex: Executor, ids: string[]): Promise<Map<string, OutgoingStatus>> {
    return new Map((await outgoingRepo.statuses(ex, ids)).map((r) => [r.id, r.status]))
  }

  reports(purpose: string, kind: string): boolean {
    const handlers = this.#handlers.get(purpose)
    // Unknown handlers (none registered in this process): reported, the worker decides.
    if (!handlers) return true
    if (kind === TRANSFER_STARTED) return handlers.started !== undefined
    if (kind === TRANSFER_ATTEMPT_FAILED) return handlers.attemptFailed !== undefined
    return true
  }

  load(ex: Executor, id: string, forUpdate = false): Promise<OutgoingRow | undefined> {
    return outgoingRepo.load(ex, id, forUpdate)
  }

  /** One run of a transfer's job; with the job's context (`finishIn`), its last transaction records the
   * job done. */
  run(id: string, job?: Pick<JobContext, 'finishIn'>): Promise<void> {
    return runTransfer(this, id, job)
  }

  async crashPoint(at: CrashPoint, id: string) {
    if (this.deps.crashHook) await this.deps.crashHook(at, id)
  }
}
