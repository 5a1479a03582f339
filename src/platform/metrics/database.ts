// What `/metrics` reads from the database at scrape time, so that every process reports the same
// numbers whatever it did itself: the job queue, outgoing transfers, the transaction records, the
// deposit watcher's cursors and the latest reconciliation. Aggregates only, each over an index
// (migration 0018), in one read-only transaction under a statement timeout.
import { sql } from 'kysely'
import type { Db, Tx } from '../../db/index.ts'

export interface JobRow {
  kind: string
  status: string
  jobs: number
  /** queued jobs whose time has come */
  ready: number
  /** seconds the oldest due queued job has waited past its run time */
  oldestReadySeconds: number | null
}

export interface OutgoingRow {
  status: string
  purpose: string
  coin: string
  transfers: number
  oldestSeconds: number
}

/** Outgoing transfers waiting for the network fee to fall under their coin's maximum. */
export interface FeeWaitRow {
  coin: string
  /** `sign` (not signed yet) or `replace` (a pending transaction not replaced above the maximum) */
  step: string
  transfers: number
  oldestSeconds: number
}

export interface TransactionRow {
  type: string
  method: string
  /** `none`, `network` (a network fee record) or `platform` (a platform fee record) */
  fee: string
  status: string
  coin: string
  records: number
  /** sum of the amounts in base units (a decimal string) */
  amount: string
}

export interface CursorRow {
  chainId: string
  blockNumber: number
  ageSeconds: number
}

export interface ReconciliationRow {
  chainId: string
  coin: string
  /** chain minus ledger, in base units (a decimal string) */
  drift: string
  finishedSeconds: number
}

export interface ReconciliationRunRow {
  chainId: string
  status: string
  finishedSeconds: number
}

export interface HaltRow {
  coin: string
  reason: string
}

/** Deposits a deep chain reorganisation took back that no operator reversed or kept yet. */
export interface ReorgFindingRow {
  coin: string
  findings: number
}

export interface CoinTotalRow {
  coin: string
  /** base units (a decimal string) */
  amount: string
}

export interface DatabaseSnapshot {
  /** every coin's reference, so that money series read 0 rather than nothing */
  coins: string[]
  /** value held in escrow accounts, per coin */
  escrow: CoinTotalRow[]
  /** disputes not settled yet */
  openDisputes: number
  /** webhook deliveries that failed for good in the last 24 hours, and those being retried now */
  webhooks: { failed: number; retrying: number }
  jobs: JobRow[]
  outgoing: OutgoingRow[]
  feeWaits: FeeWaitRow[]
  transactions: TransactionRow[]
  cursors: CursorRow[]
  /** undefined while the reconciliation tables do not exist */
  reconciliation:
    | {
        runs: ReconciliationRunRow[]
        results: ReconciliationRow[]
        halts: HaltRow[]
        custody: Array<{ coin: string; ledger: string; chain: string }>
        reorgFindings: ReorgFindingRow[]
      }
    | undefined
  /** decimals of every coin, to show amounts in coin units */
  decimals: Map<string, number>
}

/** how many recent reconciliation runs are searched for each coin's latest result */
const RECENT_RUNS = 50

async function rows<T>(tx: Tx, query: ReturnType<typeof sql<T>>): Promise<T[]> {
  return (await query.execute(tx)).rows
}

async function tableExists(tx: Tx, name: string): Promise<boolean> {
  const [row] = await rows(tx, sql<{ present: boolean }>`select to_regclass(${name}) is not null as present`)
  return row?.present === true
}

async function reconciliation(tx: Tx): Promise<DatabaseSnapshot['reconciliation']> {
  if (!(await tableExists(tx, 'reconciliation_results'))) return undefined
  const runs = await rows(
    tx,
    sql<ReconciliationRunRow>`
      select distinct on (chain_id) chain_id, status,
        extract(epoch from finished_at)::float8 as finished_seconds
      from (select * from reconciliation_runs order by started_at desc limit ${RECENT_RUNS}) recent
      order by chain_id, started_at desc`,
  )
  const results = await rows(
    tx,
    sql<ReconciliationRow>`
      select distinct on (u.chain_id, r.coin) u.chain_id, r.coin, r.drift::text as drift,
        extract(epoch from u.finished_at)::float8 as finished_seconds
      from reconciliation_results r
      join (select id, chain_id, started_at, finished_at from reconciliation_runs
            order by started_at desc limit ${RECENT_RUNS}) u on u.id = r.run_id
      order by u.chain_id, r.coin, u.started_at desc`,
  )
  const custody = await rows(
    tx,
    sql<{ coin: string; ledger: string; chain: string }>`
      select distinct on (r.coin) r.coin, r.ledger_total::text as ledger, r.chain_total::text as chain
      from reconciliation_results r
      join (select id, started_at from reconciliation_runs order by started_at desc limit ${RECENT_RUNS}) u
        on u.id = r.run_id
      order by r.coin, u.started_at desc`,
  )
  const halts = (await tableExists(tx, 'coin_halts'))
    ? await rows(tx, sql<HaltRow>`select coin, reason from coin_halts where cleared_at is null`)
    : []
  const reorgFindings = (await tableExists(tx, 'reorg_findings'))
    ? await rows(
        tx,
        sql<ReorgFindingRow>`
          select coin, count(*)::int as findings from reorg_findings where status = 'open' group by coin`,
      )
    : []
  return { runs, results, halts, custody, reorgFindings }
}

/** Reads every database series in one transaction; each statement is cut off after `timeoutMs`. */
export function readDatabase(db: Db, timeoutMs: number): Promise<DatabaseSnapshot> {
  return db.transaction().execute(async (tx) => {
    await sql.raw(`set transaction read only`).execute(tx)
    await sql.raw(`set local statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`).execute(tx)
    const jobs = await rows(
      tx,
      sql<JobRow>`
        select kind, status, count(*)::int as jobs,
          (count(*) filter (where status = 'queued' and run_at <= now()))::int as ready,
          extract(epoch from now() - min(run_at) filter (where status = 'queued' and run_at <= now()))::float8
            as oldest_ready_seconds
        from jobs where status <> 'done'
        group by kind, status`,
    )
    const outgoing = await rows(
      tx,
      sql<OutgoingRow>`
        select status, purpose, coin, count(*)::int as transfers,
          greatest(0, extract(epoch from now() - min(created_at)))::float8 as oldest_seconds
        from outgoing_transfers
        group by status, purpose, coin`,
    )
    const feeWaits = await rows(
      tx,
      sql<FeeWaitRow>`
        select coin, waiting_for_fee->>'step' as step, count(*)::int as transfers,
          greatest(0, extract(epoch from now() - min((waiting_for_fee->>'since')::timestamptz)))::float8
            as oldest_seconds
        from outgoing_transfers where waiting_for_fee is not null
        group by 1, 2`,
    )
    const transactions = await rows(
      tx,
      sql<TransactionRow>`
        select type, method,
          case when is_platform_fee then 'platform' when is_fee then 'network' else 'none' end as fee,
          status, coin, count(*)::int as records, sum(amount)::text as amount
        from transactions
        group by type, method, 3, status, coin`,
    )
    const cursors = await rows(
      tx,
      sql<CursorRow>`
        select chain_id, block_number::float8 as block_number,
          greatest(0, extract(epoch from now() - updated_at))::float8 as age_seconds
        from chain_cursors`,
    )
    const coins = await rows(
      tx,
      sql<{ reference: string; decimals: number }>`select reference, "decimal" as decimals from coins`,
    )
    const escrow = await rows(
      tx,
      sql<CoinTotalRow>`
        select coin, sum(balance)::text as amount from ledger_accounts where kind = 'escrow' group by coin`,
    )
    const [disputes] = await rows(
      tx,
      sql<{ open: number }>`select count(*)::int as open from disputes where status <> 'settled'`,
    )
    const [webhooks] = await rows(
      tx,
      sql<{ failed: number; retrying: number }>`
        select
          (select count(*) from webhook_deliveries
            where status = 'failed' and updated_at > now() - interval '1 day')::int as failed,
          (select count(*) from webhook_deliveries where status = 'pending' and attempts > 0)::int as retrying`,
    )
    return {
      coins: coins.map((c) => c.reference),
      escrow,
      openDisputes: disputes?.open ?? 0,
      webhooks: webhooks ?? { failed: 0, retrying: 0 },
      jobs,
      outgoing,
      feeWaits,
      transactions,
      cursors,
      reconciliation: await reconciliation(tx),
      decimals: new Map(coins.map((c) => [c.reference, Number(c.decimals)])),
    }
  })
}
