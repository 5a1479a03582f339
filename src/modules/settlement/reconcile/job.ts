// Reconciliation as a running job: every `intervalMs` (and on demand, `runNow`) it checks the
// ledger's invariants and that the chain holds what the ledger says at every custodial address.
// A coin with a breach or a mismatch is halted: the deposit watcher parks its movements and
// nothing is sent in it until an operator resumes it. Every run's result is stored (per coin:
// ledger total, chain total, drift) for metrics and the operator API.
import type { Logger } from 'pino'
import type { Database } from '../../../db/index.ts'
import type { ChainAdapter } from '../../../platform/chain/types.ts'
import type { Clock } from '../../../platform/clock.ts'
import { newId } from '../../../platform/crypto/ids.ts'
import type { JobQueue } from '../../../platform/jobs/queue.ts'
import {
  type ChainComparison,
  compareWithChain,
  type InvariantViolation,
  ledgerInvariants,
} from './checks.ts'
import type { Halts } from './halts.ts'
import { reconcileRepo } from './repo.ts'

export const RECONCILE_JOB = 'settlement.reconcile'

declare module '../../../platform/jobs/queue.ts' {
  interface JobPayloads {
    'settlement.reconcile': { chainId: number }
  }
}

export interface ReconcilerOptions {
  /** how often the job runs */
  intervalMs: number
  /** mismatches and violations kept in a halt's details and a run's stored result, per coin */
  detailLimit: number
}

export const DEFAULT_RECONCILER_OPTIONS: ReconcilerOptions = { intervalMs: 10 * 60_000, detailLimit: 20 }

export interface ReconcileRun {
  id: string
  status: 'ok' | 'mismatch' | 'failed'
  /** the block chain balances were read at */
  block: string | null
  violations: InvariantViolation[]
  coins: {
    coin: string
    ledgerTotal: string
    chainTotal: string
    drift: string
    checked: number
    skipped: number
  }[]
  /** coins this run halted (a coin halted already stays halted as it was) */
  halted: string[]
  error: string | null
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err))

export class Reconciler {
  readonly options: ReconcilerOptions
  #serial: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly deps: {
      database: Database
      chain: ChainAdapter
      clock: Clock
      log: Logger
      jobs: JobQueue
      halts: Halts
    },
    options: Partial<ReconcilerOptions> = {},
  ) {
    this.options = { ...DEFAULT_RECONCILER_OPTIONS, ...options }
  }

  /** Registers the job; call `start` once the module is built. */
  register() {
    this.deps.jobs.register(
      RECONCILE_JOB,
      async () => {
        try {
          await this.runNow()
        } finally {
          await this.#schedule(this.deps.clock.now().getTime() + this.options.intervalMs)
        }
      },
      // A run's own failure is stored and logged by runNow; retries only cover a renewal that
      // failed or a run that died, and must not end the chain of runs.
      { maxAttempts: 1000, deleteOnSuccess: true },
    )
  }

  /** Schedules the first run one interval from now. */
  async start() {
    try {
      await this.#schedule(this.deps.clock.now().getTime() + this.options.intervalMs)
    } catch (err) {
      this.deps.log.warn({ err: message(err) }, 'reconciliation not scheduled')
    }
  }

  /** One run per time slot, whichever worker (or restart) schedules it. */
  async #schedule(at: number) {
    const slot = Math.floor(at / this.options.intervalMs)
    await this.deps.jobs.enqueue(
      this.deps.database.db,
      RECONCILE_JOB,
      { chainId: this.deps.chain.chainId },
      {
        runAt: new Date(slot * this.options.intervalMs),
        dedupeKey: `${RECONCILE_JOB}:${this.deps.chain.chainId}:${slot}`,
      },
    )
  }

  /** Runs the checks now (runs of this process one at a time), halts what does not match. */
  runNow(): Promise<ReconcileRun> {
    const run = this.#serial.then(() => this.#run())
    this.#serial = run.catch(() => {})
    return run
  }

  /** The latest stored runs, newest first, with their per-coin results. */
  latest(limit = 10) {
    return reconcileRepo.latestRuns(this.deps.database.db, limit)
  }

  async #run(): Promise<ReconcileRun> {
    const { database, chain, clock, log, halts } = this.deps
    const db = database.db
    const id = newId()
    const startedAt = clock.now()
    let violations: InvariantViolation[]
    let comparison: ChainComparison
    try {
      violations = await ledgerInvariants(db)
      comparison = await compareWithChain(db, chain)
    } catch (err) {
      const error = message(err)
      log.error(
        { event: 'reconcile.failed', runId: id, err: error },
        'reconciliation run failed; it runs again later',
      )
      await db.transaction().execute((tx) =>
        reconcileRepo.insertRun(
          tx,
          {
            id,
            chainId: String(chain.chainId),
            status: 'failed',
            blockNumber: null,
            violations: [],
            error: error.slice(0, 2000),
            startedAt,
            finishedAt: clock.now(),
          },
          [],
        ),
      )
      return { id, status: 'failed', block: null, violations: [], coins: [], halted: [], error }
    }
    const limit = this.options.detailLimit
    const block = comparison.block === null ? null : comparison.block.toString()
    const mismatched = comparison.coins.filter((c) => c.mismatches.length > 0)
    const broken = new Map<string, InvariantViolation[]>()
    for (const v of violations) broken.set(v.coin, [...(broken.get(v.coin) ?? []), v])
    const status = mismatched.length > 0 || violations.length > 0 ? 'mismatch' : 'ok'
    const halted = await db.transaction().execute(async (tx) => {
      await reconcileRepo.insertRun(
        tx,
        {
          id,
          chainId: String(chain.chainId),
          status,
          blockNumber: comparison.block === null ? null : Number(comparison.block),
          violations: violations.slice(0, limit * 5),
          error: null,
          startedAt,
          finishedAt: clock.now(),
        },
        comparison.coins.map((c) => ({
          coin: c.coin,
          ledgerTotal: c.ledgerTotal,
          chainTotal: c.chainTotal,
          drift: c.drift,
          addressesChecked: c.checked,
          addressesSkipped: c.skipped,
          mismatches: c.mismatches.slice(0, limit),
        })),
      )
      const out: string[] = []
      for (const c of mismatched) {
        const details = {
          runId: id,
          block,
          drift: c.drift.toString(),
          mismatched: c.mismatches.length,
          mismatches: c.mismatches.slice(0, limit),
        }
        if (await halts.halt(tx, { coin: c.coin, reason: 'ledger_mismatch', details })) out.push(c.coin)
      }
      for (const [coin, list] of broken) {
        const details = { runId: id, violations: list.slice(0, limit) }
        if (await halts.halt(tx, { coin, reason: 'ledger_invariant', details })) out.push(coin)
      }
      return out
    })
    const coins = comparison.coins.map((c) => ({
      coin: c.coin,
      ledgerTotal: c.ledgerTotal.toString(),
      chainTotal: c.chainTotal.toString(),
      drift: c.drift.toString(),
      checked: c.checked,
      skipped: c.skipped,
    }))
    const summary = {
      event: 'reconcile.run',
      runId: id,
      status,
      block,
      coins,
      violations: violations.length,
      halted,
    }
    if (status === 'ok') log.info(summary, 'reconciliation: the ledger matches the chain')
    else log.error(summary, 'reconciliation found a mismatch')
    return { id, status, block, violations, coins, halted, error: null }
  }
}
