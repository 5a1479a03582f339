// GET /metrics: HTTP latency by route pattern, and the series read from the database at scrape
// time: a deposit, a withdrawal and an escrow release counted with their sums, outgoing transfers
// by state, the job queue by kind, the watcher against the chain head, reconciliation drift; open
// by default, behind METRICS_TOKEN when set.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import pino from 'pino'
import { parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { AVAX, initiate, post, sendFrom, settleAll } from '../escrow/helpers.ts'
import { createTestApp, openTestDatabase, TEST_ENV, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { freshAddress, fundUser } from '../withdrawals/helpers.ts'
import { type Sample, sampleValue, scrape } from './prometheus.ts'

declare module '../../src/platform/jobs/queue.ts' {
  interface JobPayloads {
    'ops.metrics-probe': Record<string, never>
  }
}

let t: TestApp
let payer: TestUser
let receiver: TestUser

beforeAll(async () => {
  t = await createTestApp()
  payer = await createUser(t)
  receiver = await createUser(t)
})
afterAll(() => t?.close())

const metrics = async (headers: Record<string, string> = {}) => {
  const res = await t.req({ method: 'GET', url: '/metrics', headers })
  expect(res.statusCode, res.body).toBe(200)
  return scrape(res)
}

describe('GET /metrics', () => {
  it('answers the Prometheus text format without a token, times requests by route pattern', async () => {
    const id = 'a'.repeat(24)
    await t.req({ method: 'GET', url: `/v1/collection/${id}`, token: payer.token })
    await t.req({ method: 'GET', url: '/no/such/path' })
    const res = await t.req({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    const samples = scrape(res)
    const timed = samples.filter((s) => s.name === 'http_request_duration_seconds_count')
    expect(
      timed.find((s) => s.labels.route === '/v1/collection/:id' && s.labels.method === 'GET'),
    ).toBeDefined()
    expect(timed.find((s) => s.labels.route === 'unmatched' && s.labels.status_code === '404')).toBeDefined()
    // never the raw URL
    expect(
      samples.some((s) => Object.values(s.labels).some((v) => v.includes(id) || v.includes('/no/such'))),
    ).toBe(false)
    // the process's own runtime series
    expect(samples.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true)
    expect(sampleValue(samples, 'workpay_metrics_source_up', { source: 'database' })).toBe(1)
    expect(sampleValue(samples, 'workpay_metrics_source_up', { source: 'chain' })).toBe(1)
  })

  it('counts a deposit, a withdrawal and an escrow release, with their sums in coins', async () => {
    const deposit = { type: 'deposit', method: 'transfer', fee: 'none', status: 'completed', coin: 'avax' }
    const withdrawal = { type: 'withdrawal', method: 'sent', fee: 'none', status: 'completed', coin: 'avax' }
    const payout = { type: 'deposit', method: 'payout', fee: 'none', status: 'completed', coin: 'avax' }
    const before = await metrics()
    const count = (s: Sample[], labels: Record<string, string>) =>
      sampleValue(s, 'workpay_transactions', labels) ?? 0
    const sum = (s: Sample[], labels: Record<string, string>) =>
      sampleValue(s, 'workpay_transactions_amount', labels) ?? 0

    await fundUser(t, 0, payer, 'avax', 2n * AVAX)
    const w = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: payer.token,
      payload: { password: payer.password, amount: 0.25, coin: 'avax', address: freshAddress() },
    })
    expect(w.statusCode, w.body).toBe(200)
    await settleAll(t)

    const q = await initiate(t, payer, receiver, { amount: 70 })
    await sendFrom(
      t,
      t.app.services.chain.devnet!.accounts[1]!,
      q.address,
      'avax',
      BigInt(q.amountToPayBaseUnits),
    )
    expect((await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })).json().data.status).toBe(
      'paid',
    )
    expect((await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(200)
    await settleAll(t)

    const after = await metrics()
    expect(count(after, deposit) - count(before, deposit)).toBe(1)
    expect(sum(after, deposit) - sum(before, deposit)).toBeCloseTo(2, 9)
    expect(count(after, withdrawal) - count(before, withdrawal)).toBe(1)
    expect(sum(after, withdrawal) - sum(before, withdrawal)).toBeCloseTo(0.25, 9)
    expect(count(after, payout) - count(before, payout)).toBe(1)
    expect(sum(after, payout) - sum(before, payout)).toBeCloseTo(
      Number(BigInt(q.coinEscrowAmountBaseUnits)) / Number(parseEther('1')),
      9,
    )
    // the sums equal the records in the database
    const [row] = (
      await sql<{ n: number; total: string }>`
        select count(*)::int as n, sum(amount)::text as total from transactions
        where type = 'deposit' and method = 'payout' and status = 'completed' and coin = 'avax'`.execute(
        t.database.db,
      )
    ).rows
    expect(count(after, payout)).toBe(row!.n)
    // every outgoing transfer settled, counted by purpose, none in flight
    const completed = after.filter(
      (s) => s.name === 'workpay_outgoing_transfers' && s.labels.status === 'completed',
    )
    expect(completed.reduce((a, s) => a + s.value, 0)).toBeGreaterThanOrEqual(2)
    expect(after.filter((s) => s.name === 'workpay_outgoing_transfer_oldest_age_seconds')).toEqual([])
  })

  it('reads the watcher against the chain head', async () => {
    await t.app.services.chain.devnet!.mine(3)
    const s = await metrics()
    const chain = String(t.app.services.chain.chainId)
    const head = sampleValue(s, 'workpay_chain_head_block', { chain })!
    const cursor = sampleValue(s, 'workpay_watcher_cursor_block', { chain })!
    expect(head).toBe(Number(await t.app.services.chain.blockNumber()))
    expect(cursor).toBeGreaterThan(0)
    expect(sampleValue(s, 'workpay_watcher_lag_blocks', { chain })).toBe(head - cursor)
    expect(head - cursor).toBeGreaterThanOrEqual(3)
  })

  it('reports queue depth and the oldest due job by kind, and transfers in flight with their age', async () => {
    const db = t.database.db
    const { jobs } = t.app.services
    const due = new Date(Date.now() - 90_000)
    await jobs.enqueue(db, 'ops.metrics-probe', {}, { runAt: due })
    await jobs.enqueue(db, 'ops.metrics-probe', {}, { runAt: new Date(Date.now() + 3_600_000) })
    const s = await metrics()
    const kind = { kind: 'ops.metrics-probe' }
    expect(sampleValue(s, 'workpay_job_queue_depth', kind)).toBe(2)
    expect(sampleValue(s, 'workpay_job_queue_ready', kind)).toBe(1)
    expect(sampleValue(s, 'workpay_job_queue_oldest_age_seconds', kind)).toBeGreaterThanOrEqual(89)

    await sql`
      insert into outgoing_transfers (id, chain_id, idempotency_key, purpose, from_kind, from_owner_id,
        from_address, coin, to_address, amount, status, created_at)
      values ('ops0metrics0probe0000001', '31337', 'ops-metrics-probe', 'ops.probe', 'treasury', 'x',
        '0x0000000000000000000000000000000000000001', 'avax', '0x0000000000000000000000000000000000000002',
        1, 'signed', now() - interval '10 minutes')`.execute(db)
    const s2 = await metrics()
    const labels = { status: 'signed', purpose: 'ops.probe', coin: 'avax' }
    expect(sampleValue(s2, 'workpay_outgoing_transfers', labels)).toBe(1)
    expect(sampleValue(s2, 'workpay_outgoing_transfer_oldest_age_seconds', labels)).toBeGreaterThanOrEqual(
      599,
    )
    await sql`delete from outgoing_transfers where id = 'ops0metrics0probe0000001'`.execute(db)
    await sql`delete from jobs where kind = 'ops.metrics-probe'`.execute(db)
    const s3 = await metrics()
    expect(sampleValue(s3, 'workpay_outgoing_transfers', labels)).toBeUndefined()
    expect(sampleValue(s3, 'workpay_job_queue_depth', kind)).toBeUndefined()
  })

  it('shows the ledger-vs-chain drift of the latest reconciliation and halted coins', async () => {
    const db = t.database.db
    const present = (
      await sql<{ ok: boolean }>`select to_regclass('reconciliation_results') is not null as ok`.execute(db)
    ).rows[0]!.ok
    if (!present) {
      // before the reconciliation tables exist the gauge is empty, and the reading still succeeds
      const s = await metrics()
      expect(s.filter((x) => x.name === 'workpay_ledger_chain_drift')).toEqual([])
      expect(sampleValue(s, 'workpay_metrics_source_up', { source: 'database' })).toBe(1)
      return
    }
    // after every run the app itself may have recorded (the reconciliation job runs with the others)
    const base = Number(
      (
        await sql<{ at: number }>`
          select extract(epoch from greatest(now(), coalesce(max(started_at), now())))::float8 as at
          from reconciliation_runs`.execute(db)
      ).rows[0]!.at,
    )
    const run = async (id: string, minutesAfter: number, status: string, drift: bigint) => {
      const at = new Date((base + minutesAfter * 60) * 1000)
      await sql`
        insert into reconciliation_runs (id, chain_id, status, block_number, started_at, finished_at)
        values (${id}, '31337', ${status}, 1, ${at}, ${new Date(at.getTime() + 1000)})`.execute(db)
      await sql`
        insert into reconciliation_results (run_id, coin, ledger_total, chain_total, drift, addresses_checked,
          addresses_skipped)
        values (${id}, 'usdc', 1000000, ${1_000_000n - drift}, ${drift}, 3, 0)`.execute(db)
    }
    await run('ops0recon0older000000001', 1, 'ok', 0n)
    await run('ops0recon0latest00000001', 2, 'mismatch', 2_500_000n)
    // a coin of its own, so that no halt the app made can be in the way
    await sql`insert into coin_halts (id, coin, reason) values ('ops0halt0probe0000000001', 'opsprobe', 'ledger_mismatch')`.execute(
      db,
    )
    const s = await metrics()
    expect(sampleValue(s, 'workpay_ledger_chain_drift', { chain: '31337', coin: 'usdc' })).toBe(2.5)
    const last = s.filter((x) => x.name === 'workpay_reconciliation_last_run_timestamp_seconds')
    expect(last.map((x) => x.labels)).toEqual([{ chain: '31337', status: 'mismatch' }])
    expect(last[0]!.value).toBeCloseTo(base + 2 * 60 + 1, 0)
    expect(sampleValue(s, 'workpay_coin_halted', { coin: 'opsprobe', reason: 'ledger_mismatch' })).toBe(1)
    await sql`update coin_halts set cleared_at = now() where id = 'ops0halt0probe0000000001'`.execute(db)
    expect(
      sampleValue(await metrics(), 'workpay_coin_halted', { coin: 'opsprobe', reason: 'ledger_mismatch' }),
    ).toBe(undefined)
  })

  it('does not log probes at info', async () => {
    const lines: string[] = []
    const logger = pino({ level: 'info' }, { write: (l: string) => lines.push(l) })
    const database = await openTestDatabase()
    const dataDir = mkdtempSync(join(tmpdir(), 'wp-ops-log-'))
    const app = await buildApp({ config: loadConfig({ ...TEST_ENV, DATA_DIR: dataDir }), database, logger })
    try {
      await app.ready()
      for (const url of ['/health', '/ready', '/metrics']) {
        const res = await app.inject({ method: 'GET', url })
        expect(res.statusCode, url).toBe(200)
      }
      await app.inject({ method: 'GET', url: '/v1/payment/coins' })
      const urls = lines.map((l) => JSON.parse(l).req?.url).filter(Boolean)
      expect(urls).toContain('/v1/payment/coins')
      expect(urls.filter((u: string) => ['/health', '/ready', '/metrics'].includes(u))).toEqual([])
    } finally {
      await app.close()
      await database.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

describe('GET /metrics with METRICS_TOKEN', () => {
  let guarded: TestApp
  const token = 'metrics-token-0123456789'
  beforeAll(async () => {
    guarded = await createTestApp({ env: { METRICS_TOKEN: token } })
  })
  afterAll(() => guarded?.close())

  it('answers 401 in the error envelope without the token or with another one, 200 with it', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: token }]) {
      const res = await guarded.req({ method: 'GET', url: '/metrics', headers })
      expect(res.statusCode).toBe(401)
      expect(res.json()).toMatchObject({ status: 'error', data: { code: 'UNAUTHENTICATED' } })
      expect(res.headers['www-authenticate']).toBe('Bearer')
    }
    const ok = await guarded.req({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${token}` },
    })
    expect(ok.statusCode).toBe(200)
    expect(ok.body).toContain('workpay_metrics_source_up')
    // the other probes stay open
    expect((await guarded.req({ method: 'GET', url: '/health' })).statusCode).toBe(200)
  })
})
