// Prometheus metrics of one process: HTTP latency by route pattern and status, the process's own
// runtime (CPU, memory, event loop), and series read at scrape time from the database (jobs,
// outgoing transfers, transaction records, reconciliation) and the chain (head vs the watcher's
// cursor). The database series are the same from every process, since they come from the shared
// database, not from what one process happened to do.
import type { Logger } from 'pino'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { formatUnits } from 'viem'
import type { Db, PoolState } from '../../db/index.ts'
import type { RetryStats } from '../../db/retry.ts'
import type { ChainAdapter } from '../chain/types.ts'
import { type DatabaseSnapshot, readDatabase } from './database.ts'

export interface MetricsDeps {
  db: Db
  /** the chain adapter, once the application has one */
  chain: () => ChainAdapter | undefined
  log: Logger
  /** time limit of each reading (database statements, the chain's head) */
  timeoutMs: number
  /** this process's transactions run again after a deadlock or serialization failure */
  retryStats?: RetryStats
  /** this process's PostgreSQL connection pool now (none on the embedded database) */
  pool?: () => PoolState | undefined
  /** times this process's job worker gave way to its requests (`JobQueue.heldBack`) */
  jobsHeldBack?: () => number
  /** each group of this process's job slots and its share (`JobQueue.shares`) */
  jobsShares?: () => { group: string; share: number }[]
}

const OPEN_TRANSFER_STATES = new Set(['queued', 'signed', 'sent'])

function withTimeout<T>(what: string, promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms)
  })
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer))
}

export class Metrics {
  readonly registry = new Registry()
  readonly contentType = this.registry.contentType
  readonly #deps: MetricsDeps
  #refreshing: Promise<void> | undefined

  readonly #http: Histogram<'method' | 'route' | 'status_code'>
  readonly #g: Record<string, Gauge<string>>

  constructor(deps: MetricsDeps) {
    this.#deps = deps
    const registers = [this.registry]
    collectDefaultMetrics({ register: this.registry })
    this.#http = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route pattern (never the raw URL), method and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    })
    const retryStats = deps.retryStats
    if (retryStats)
      new Counter({
        name: 'workpay_db_transaction_retries_total',
        help: 'Transactions of this process run again after PostgreSQL aborted them (reason: deadlock or serialization; outcome: retried, or exhausted when the last run failed too)',
        labelNames: ['reason', 'outcome'],
        registers,
        collect() {
          this.reset()
          for (const [reason, n] of Object.entries(retryStats.retried))
            this.inc({ reason, outcome: 'retried' }, n)
          for (const [reason, n] of Object.entries(retryStats.exhausted))
            this.inc({ reason, outcome: 'exhausted' }, n)
        },
      })
    const heldBack = deps.jobsHeldBack
    if (heldBack)
      new Counter({
        name: 'workpay_jobs_held_back_total',
        help: "Times this process's job worker started fewer jobs than it had free slots for, to leave pooled connections to its requests",
        registers,
        collect() {
          this.reset()
          this.inc(heldBack())
        },
      })
    const shares = deps.jobsShares
    if (shares)
      new Gauge({
        name: 'workpay_jobs_share',
        help: "Jobs each group of this process's job slots may run while a request waits for a pooled connection: one, raised while its jobs start late",
        labelNames: ['group'],
        registers,
        collect() {
          this.reset()
          for (const { group, share } of shares()) this.set({ group }, share)
        },
      })
    const pool = deps.pool
    // (the embedded database answers no pool: no such series)
    if (pool?.()) {
      new Gauge({
        name: 'workpay_db_pool_connections',
        help: "This process's pooled PostgreSQL connections by state (busy: lent to a statement or transaction, or still connecting; idle: open, free)",
        labelNames: ['state'],
        registers,
        collect() {
          const p = pool()!
          this.set({ state: 'busy' }, p.open - p.idle)
          this.set({ state: 'idle' }, p.idle)
        },
      })
      new Gauge({
        name: 'workpay_db_pool_waiting',
        help: 'Callers of this process waiting for a pooled connection (every connection busy, the pool at DATABASE_POOL_SIZE)',
        registers,
        collect() {
          this.set(pool()!.waiting)
        },
      })
    }
    const gauge = (name: string, help: string, labelNames: string[]) =>
      new Gauge({ name, help, labelNames, registers })
    this.#g = {
      queueDepth: gauge('workpay_job_queue_depth', 'Queued jobs by kind (due now or scheduled later)', [
        'kind',
      ]),
      queueReady: gauge('workpay_job_queue_ready', 'Queued jobs whose run time has come, by kind', ['kind']),
      queueOldest: gauge(
        'workpay_job_queue_oldest_age_seconds',
        'How long the oldest due queued job of each kind has waited past its run time',
        ['kind'],
      ),
      jobsRunning: gauge('workpay_jobs_running', 'Jobs claimed by a worker, by kind', ['kind']),
      jobsFailed: gauge('workpay_jobs_failed', 'Jobs that failed for good (kept for inspection), by kind', [
        'kind',
      ]),
      outgoing: gauge('workpay_outgoing_transfers', 'Outgoing chain transfers by state, purpose and coin', [
        'status',
        'purpose',
        'coin',
      ]),
      feeWaits: gauge(
        'workpay_outgoing_waiting_for_fee',
        "Outgoing transfers waiting because the network asks more per gas than their coin's maximum (maxFeePerGasGwei), by coin and step (sign: not signed yet; replace: a pending transaction not replaced above the maximum)",
        ['coin', 'step'],
      ),
      feeWaitOldest: gauge(
        'workpay_outgoing_waiting_for_fee_oldest_seconds',
        'How long the longest-waiting of those transfers has waited, by coin and step',
        ['coin', 'step'],
      ),
      outgoingOldest: gauge(
        'workpay_outgoing_transfer_oldest_age_seconds',
        'Age of the oldest transfer still in flight (queued, signed, sent), by state, purpose and coin',
        ['status', 'purpose', 'coin'],
      ),
      transactions: gauge(
        'workpay_transactions',
        'Transaction records by type, method, fee kind, status and coin (deposits: type=deposit method=transfer; payouts: type=deposit method=payout; withdrawals: type=withdrawal method=sent)',
        ['type', 'method', 'fee', 'status', 'coin'],
      ),
      transactionsAmount: gauge(
        'workpay_transactions_amount',
        'Sum of the transaction records, in whole coins, by type, method, fee kind, status and coin',
        ['type', 'method', 'fee', 'status', 'coin'],
      ),
      head: gauge('workpay_chain_head_block', 'Latest block number of the chain endpoint', ['chain']),
      cursor: gauge('workpay_watcher_cursor_block', 'Last block the deposit watcher processed', ['chain']),
      lag: gauge('workpay_watcher_lag_blocks', 'Blocks between the chain head and the deposit watcher', [
        'chain',
      ]),
      cursorAge: gauge(
        'workpay_watcher_cursor_age_seconds',
        'Seconds since the deposit watcher moved its cursor',
        ['chain'],
      ),
      drift: gauge(
        'workpay_ledger_chain_drift',
        'Chain minus ledger balance of each coin at the latest reconciliation, in whole coins (0 = in agreement)',
        ['chain', 'coin'],
      ),
      reconciled: gauge(
        'workpay_reconciliation_last_run_timestamp_seconds',
        'When the latest reconciliation run finished (Unix seconds), with its outcome',
        ['chain', 'status'],
      ),
      halted: gauge(
        'workpay_coin_halted',
        '1 for each coin halted by reconciliation or an operator (with its reason), 0 for every other coin',
        ['coin', 'reason'],
      ),
      reorgFindings: gauge(
        'workpay_reorg_findings_open',
        'Deposits a deep chain reorganisation took back, their value held, that no operator reversed or kept yet (GET /v1/admin/reorgs), by coin',
        ['coin'],
      ),
      escrow: gauge('workpay_escrow_balance', 'Value held in escrow accounts, in whole coins', ['coin']),
      custodyLedger: gauge(
        'workpay_custody_ledger_total',
        'What the ledger says custodial addresses hold, at the latest reconciliation, in whole coins',
        ['coin'],
      ),
      custodyChain: gauge(
        'workpay_custody_chain_total',
        'What custodial addresses hold on chain, at the latest reconciliation, in whole coins',
        ['coin'],
      ),
      gasWallet: gauge(
        'workpay_gas_wallet_balance',
        "The gas wallet's native balance read from the chain, in whole coins",
        ['chain', 'coin'],
      ),
      disputes: gauge('workpay_disputes_open', 'Disputes not settled yet (open or being paid out)', []),
      webhooksFailed: gauge(
        'workpay_webhook_deliveries_failed',
        'Webhook deliveries that failed for good in the last 24 hours',
        [],
      ),
      webhooksRetrying: gauge(
        'workpay_webhook_deliveries_retrying',
        'Webhook deliveries that failed at least once and are waiting for their next attempt',
        [],
      ),
      up: gauge(
        'workpay_metrics_source_up',
        '1 when the last reading of the source (database, chain) succeeded',
        ['source'],
      ),
      duration: gauge(
        'workpay_metrics_source_duration_seconds',
        'How long the last reading of the source took',
        ['source'],
      ),
    }
  }

  /** Records one HTTP request; `route` is the route pattern (`/v1/collection/:id`). */
  observeHttp(method: string, route: string, statusCode: number, seconds: number) {
    this.#http.observe({ method, route, status_code: String(statusCode) }, seconds)
  }

  /** The exposition text, after reading the database and the chain (one reading at a time). */
  async render(): Promise<string> {
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = undefined
    })
    await this.#refreshing
    return this.registry.metrics()
  }

  async #read<T>(source: string, read: () => Promise<T>): Promise<T | undefined> {
    const started = performance.now()
    try {
      const value = await withTimeout(`reading ${source}`, read(), this.#deps.timeoutMs)
      this.#g.up!.set({ source }, 1)
      return value
    } catch (err) {
      this.#g.up!.set({ source }, 0)
      this.#deps.log.warn(
        { source, err: err instanceof Error ? err.message : String(err) },
        'metrics reading failed',
      )
      return undefined
    } finally {
      this.#g.duration!.set({ source }, (performance.now() - started) / 1000)
    }
  }

  async #refresh() {
    const chain = this.#deps.chain()
    const native = chain?.coins.find((c) => !c.isToken)
    const [snapshot, head, gas] = await Promise.all([
      this.#read('database', () => readDatabase(this.#deps.db, this.#deps.timeoutMs)),
      chain ? this.#read('chain', () => chain.blockNumber()) : Promise.resolve(undefined),
      chain && native
        ? this.#read('gas_wallet', () => chain.balanceOf(chain.gasWallet.address, native.reference))
        : Promise.resolve(undefined),
    ])
    for (const g of Object.values(this.#g)) if (g !== this.#g.up && g !== this.#g.duration) g.reset()
    const chainLabel = chain ? String(chain.chainId) : undefined
    if (chainLabel && head !== undefined) this.#g.head!.set({ chain: chainLabel }, Number(head))
    if (chainLabel && native && gas !== undefined)
      this.#g.gasWallet!.set(
        { chain: chainLabel, coin: native.reference },
        Number(formatUnits(gas, native.decimals)),
      )
    if (snapshot) this.#fromDatabase(snapshot, chainLabel, head)
  }

  #fromDatabase(s: DatabaseSnapshot, chainLabel: string | undefined, head: bigint | undefined) {
    const g = this.#g
    const coins = (coin: string, baseUnits: string) =>
      Number(formatUnits(BigInt(baseUnits), s.decimals.get(coin) ?? 0))
    // Money series of every coin are present from the start, at 0 until something moves.
    for (const coin of s.coins) {
      g.escrow!.set({ coin }, 0)
      g.halted!.set({ coin }, 0)
      g.reorgFindings!.set({ coin }, 0)
    }
    for (const e of s.escrow) g.escrow!.set({ coin: e.coin }, coins(e.coin, e.amount))
    g.disputes!.set(s.openDisputes)
    g.webhooksFailed!.set(s.webhooks.failed)
    g.webhooksRetrying!.set(s.webhooks.retrying)
    for (const j of s.jobs) {
      const kind = { kind: j.kind }
      if (j.status === 'queued') {
        g.queueDepth!.set(kind, j.jobs)
        g.queueReady!.set(kind, j.ready)
        g.queueOldest!.set(kind, Math.max(0, j.oldestReadySeconds ?? 0))
      } else if (j.status === 'running') g.jobsRunning!.set(kind, j.jobs)
      else if (j.status === 'failed') g.jobsFailed!.set(kind, j.jobs)
    }
    for (const o of s.outgoing) {
      const labels = { status: o.status, purpose: o.purpose, coin: o.coin }
      g.outgoing!.set(labels, o.transfers)
      if (OPEN_TRANSFER_STATES.has(o.status)) g.outgoingOldest!.set(labels, o.oldestSeconds)
    }
    for (const f of s.feeWaits) {
      g.feeWaits!.set({ coin: f.coin, step: f.step }, f.transfers)
      g.feeWaitOldest!.set({ coin: f.coin, step: f.step }, f.oldestSeconds)
    }
    for (const t of s.transactions) {
      const labels = { type: t.type, method: t.method, fee: t.fee, status: t.status, coin: t.coin }
      g.transactions!.set(labels, t.records)
      g.transactionsAmount!.set(labels, coins(t.coin, t.amount))
    }
    for (const c of s.cursors) {
      g.cursor!.set({ chain: c.chainId }, c.blockNumber)
      g.cursorAge!.set({ chain: c.chainId }, c.ageSeconds)
      if (c.chainId === chainLabel && head !== undefined)
        g.lag!.set({ chain: c.chainId }, Math.max(0, Number(head) - c.blockNumber))
    }
    if (s.reconciliation) {
      for (const r of s.reconciliation.runs)
        g.reconciled!.set({ chain: r.chainId, status: r.status }, r.finishedSeconds)
      for (const r of s.reconciliation.results)
        g.drift!.set({ chain: r.chainId, coin: r.coin }, coins(r.coin, r.drift))
      for (const h of s.reconciliation.halts) {
        g.halted!.remove({ coin: h.coin })
        g.halted!.set({ coin: h.coin, reason: h.reason }, 1)
      }
      for (const r of s.reconciliation.reorgFindings) g.reorgFindings!.set({ coin: r.coin }, r.findings)
      for (const c of s.reconciliation.custody) {
        g.custodyLedger!.set({ coin: c.coin }, coins(c.coin, c.ledger))
        g.custodyChain!.set({ coin: c.coin }, coins(c.coin, c.chain))
      }
    }
  }
}
