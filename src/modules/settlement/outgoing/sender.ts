// The crash-safe sender of outgoing chain transfers (`services.outgoing`), used by withdrawals,
// escrow payouts and gas top-ups. Callers enqueue an intent in their own transaction
// (`enqueue.ts`); the `outgoing.send` job runs it (`runner.ts`) and settles it once (`outcome.ts`).
import type { Executor, Tx } from '../../../db/index.ts'
import { enqueueTransfer } from './enqueue.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import { runTransfer } from './runner.ts'
import {
  type CrashPoint,
  DEFAULT_SENDER_OPTIONS,
  type EnqueueTransfer,
  GAS_TOPUP_PURPOSE,
  type OutgoingHandlers,
  type OutgoingView,
  type SenderContext,
  type SenderDeps,
  type SenderOptions,
  viewOf,
} from './types.ts'

export class OutgoingSender implements SenderContext {
  readonly #handlers = new Map<string, OutgoingHandlers>()
  readonly options: SenderOptions
  /** tests only: called at each crash point; throw SimulatedCrash to "kill" the worker there */
  testHook: ((at: CrashPoint, transferId: string) => void | Promise<void>) | undefined

  constructor(
    readonly deps: SenderDeps,
    options: Partial<SenderOptions> = {},
  ) {
    this.options = { ...DEFAULT_SENDER_OPTIONS, ...options }
    // Top-ups are transfers of this sender too; the watcher credits their arrival.
    this.on(GAS_TOPUP_PURPOSE, { settled: async () => {} })
  }

  get chainKey() {
    return String(this.deps.chain.chainId)
  }

  /** Registers the handlers of a purpose (replaces earlier ones). */
  on(purpose: string, handlers: OutgoingHandlers) {
    this.#handlers.set(purpose, handlers)
  }

  handlers(purpose: string) {
    return this.#handlers.get(purpose)
  }

  /**
   * Queues a transfer inside the caller's transaction (with the change that needs it): nothing
   * happens unless that transaction commits. The same `key` returns the first transfer's id.
   */
  enqueue(tx: Tx, input: EnqueueTransfer): Promise<{ id: string; replayed: boolean }> {
    return enqueueTransfer(this, tx, input)
  }

  /** A transfer as handlers see it (for callers' reads). */
  async get(ex: Executor, id: string): Promise<OutgoingView | undefined> {
    const row = await this.load(ex, id)
    return row && viewOf(row)
  }

  load(ex: Executor, id: string, forUpdate = false): Promise<OutgoingRow | undefined> {
    return outgoingRepo.load(ex, id, forUpdate)
  }

  /** One run of a transfer's job. */
  run(id: string): Promise<void> {
    return runTransfer(this, id)
  }

  async crashPoint(at: CrashPoint, id: string) {
    if (this.testHook) await this.testHook(at, id)
  }
}
