// Reconciliation as a running job: every `intervalMs` (and on demand, `runNow`) it checks the
// ledger's invariants and that the chain holds what the ledger says at every custodial address.
// A coin with a breach or a mismatch is halted: the deposit watcher parks its movements and
// nothing is sent in it until an operator resumes it. Every run's result is stored (per coin:
// ledger total, chain total, drift) for metrics and the operator API.
// Drift that heals itself: an address holding more on chain than in the ledger is first read
// again (the rescan job, `rescan.ts`, credits what the watcher missed, once), and reconciliation
// checks again afterwards; only what the rescan cannot explain halts the coin.
import type { Logger } from 'pino'
import type { Database } from '../../../db/index.ts'
import type { ChainAdapter } from '../../../platform/chain/types.ts'
import type { Clock } from '../../../platform/clock.ts'
import { newId } from '../../../platform/crypto/ids.ts'
import type { JobQueue } from '../../../platform/jobs/queue.ts'
import type { Ledger } from '../../ledger/types.ts'
import type { TransactionService } from '../../transactions/types.ts'
import { watcherRepo } from '../watcher/repo.ts'
import {
  type ChainComparison,
  compareWithChain,
  type InvariantViolation,
  ledgerInvariants,
} from './checks.ts'
import type { Halts } from './halts.ts'
import { reconcileRepo } from './repo.ts'
import { RESCAN_JOB, type RescanTarget, rescanAddresses } from './rescan.ts'
import { reservationInvariants } from './reservations.ts'

export const RECONCILE_JOB = 'settlement.reconcile'

declare module '../../../platform/jobs/queue.ts' {
  interface JobPayloads {
    /** `rescanned`: a check after a rescan of these (address, coin): their drift now halts */
    'settlement.reconcile': { chainId: number; rescanned?: { address: string; coin: string }[] }
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
  /** addresses with more on chain than in the ledger, read again before anything halts */
  rescanning: RescanTarget[]
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
      /** with both, drift of more on chain than in the ledger is rescanned before it halts */
      ledger?: Ledger
      transactions?: TransactionService
    },
    options: Partial<ReconcilerOptions> = {},
  ) {
    this.options = { ...DEFAULT_RECONCILER_OPTIONS, ...options }
  }

  /** Registers the job; call `start` once the module is built. */
  register() {
    this.deps.jobs.register(
      RECONCILE_JOB,
      async (payload) => {
        if (payload.rescanned) {
          // the check after a rescan: the periodic runs are scheduled by the others
          await this.runNow({ rescanned: payload.rescanned })
          return
        }
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
    const { ledger, transactions } = this.deps
    if (ledger && transactions)
      this.deps.jobs.register(
        RESCAN_JOB,
        async (payload) => {
          await rescanAddresses({ ...this.deps, ledger, transactions }, payload.targets)
          // Checked again whatever the rescan found: what it did not explain halts there.
          await this.deps.jobs.enqueue(
            this.deps.database.db,
            RECONCILE_JOB,
            {
              chainId: payload.chainId,
              rescanned: payload.targets.map((t) => ({ address: t.address, coin: t.coin })),
            },
            { dedupeKey: `${RECONCILE_JOB}:${payload.chainId}:after:${payload.runId}` },
          )
        },
        // a chain read that fails is tried again (with backoff); the coin is not halted meanwhile
        { maxAttempts: 10 },
      )
  }

  /** Whether drift of more on chain than in the ledger is rescanned before it halts. */
  get heals(): boolean {
    return this.deps.ledger !== undefined && this.deps.transactions !== undefined
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

  /**
   * Runs the checks now (runs of this process one at a time), halts what does not match. An
   * address with more on chain than in the ledger is rescanned first (a job; the check after it
   * is another job) unless it is among `rescanned`, the addresses that were just rescanned.
   */
  runNow(opts: { rescanned?: readonly { address: string; coin: string }[] } = {}): Promise<ReconcileRun> {
    const run = this.#serial.then(() => this.#run(opts.rescanned ?? []))
    this.#serial = run.catch(() => {})
    return run
  }

  /** The latest stored runs, newest first, with their per-coin results. */
  latest(limit = 10) {
    return reconcileRepo.latestRuns(this.deps.database.db, limit)
  }

  async #run(rescanned: readonly { address: string; coin: string }[]): Promise<ReconcileRun> {
    const { database, chain, clock, log, halts } = this.deps
    const db = database.db
    const id = newId()
    const startedAt = clock.now()
    let violations: InvariantViolation[]
    let comparison: ChainComparison
    try {
      // The sweep of holds whose timeout passed: voided before the checks, each in its own
      // transaction (a hold posted or voided meanwhile is left alone).
      const expired = (await this.deps.ledger?.expireDue(db, 1000)) ?? 0
      if (expired > 0) log.info({ event: 'ledger.holds-expired', runId: id, expired }, 'expired holds voided')
      violations = [...(await ledgerInvariants(db)), ...(await reservationInvariants(db))]
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
      return {
        id,
        status: 'failed',
        block: null,
        violations: [],
        coins: [],
        halted: [],
        rescanning: [],
        error,
      }
    }
    const limit = this.options.detailLimit
    const block = comparison.block === null ? null : comparison.block.toString()
    // More on chain than in the ledger, not just rescanned: read again before anything halts.
    const done = new Set(rescanned.map((r) => `${r.address.toLowerCase()}:${r.coin}`))
    const healable = (m: { address: string; coin: string; drift: string }) =>
      this.heals && BigInt(m.drift) > 0n && !done.has(`${m.address}:${m.coin}`)
    const rescanning: RescanTarget[] = comparison.coins.flatMap((c) =>
      c.mismatches.filter(healable).map((m) => ({ address: m.address, coin: m.coin, drift: m.drift })),
    )
    // A coin halts for a mismatch that no rescan may explain (or that one could not).
    const mismatched = comparison.coins.filter((c) => c.mismatches.some((m) => !healable(m)))
    const broken = new Map<string, InvariantViolation[]>()
    for (const v of violations) broken.set(v.coin, [...(broken.get(v.coin) ?? []), v])
    // (a run that only sent addresses to be rescanned still says what it found)
    const status =
      comparison.coins.some((c) => c.mismatches.length > 0) || violations.length > 0 ? 'mismatch' : 'ok'
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
      // The run's finding as a system event of the audit log (GET /v1/admin/audit).
      if (status !== 'ok')
        await watcherRepo.audit(
          tx,
          'reconciliation.drift',
          {
            runId: id,
            chainId: chain.chainId,
            block,
            coins: comparison.coins
              .filter((c) => c.mismatches.length > 0)
              .map((c) => ({ coin: c.coin, drift: c.drift.toString(), mismatched: c.mismatches.length })),
            violations: violations.length,
            halted: out,
            rescanning: rescanning.length,
          },
          clock.now(),
        )
      if (rescanning.length > 0)
        await this.deps.jobs.enqueue(
          tx,
          RESCAN_JOB,
          { chainId: chain.chainId, runId: id, targets: rescanning },
          { dedupeKey: `${RESCAN_JOB}:${chain.chainId}:${id}` },
        )
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
      rescanning,
    }
    if (status === 'ok') log.info(summary, 'reconciliation: the ledger matches the chain')
    else log.error(summary, 'reconciliation found a mismatch')
    if (rescanning.length > 0)
      log.warn(
        { event: 'reconcile.rescanning', runId: id, rescanning },
        'reconciliation: more on chain than in the ledger at some addresses; reading their history again before halting',
      )
    return { id, status, block, violations, coins, halted, rescanning, error: null }
  }
}
