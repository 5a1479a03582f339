// GET /metrics counts this process's pooled PostgreSQL connections by state and the callers waiting
// for one: a pool too small for the process's work shows as waiting callers before it shows as
// slow answers. The embedded database has no pool (one connection): no such series there.
import { sql } from 'kysely'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openPostgres } from '../../src/db/index.ts'
import { Metrics } from '../../src/platform/metrics/index.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { heldOpen } from '../helpers/held-transaction.ts'
import { parseExposition, sampleValue } from './prometheus.ts'

const onPostgres = process.env.TEST_DB === 'postgres'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

const scrape = async () => {
  const res = await t.req({ method: 'GET', url: '/metrics' })
  expect(res.statusCode).toBe(200)
  return parseExposition(res.body)
}

describe('connection pool metrics', () => {
  it.runIf(!onPostgres)('has no pool series on the embedded database', async () => {
    expect(t.database.pool()).toBeUndefined()
    const samples = await scrape()
    expect(samples.some((s) => s.name.startsWith('workpay_db_pool'))).toBe(false)
  })

  it("counts the times the job worker gave way to requests, and answers each group's share, on both drivers", async () => {
    const samples = await scrape()
    expect(sampleValue(samples, 'workpay_jobs_held_back_total', {})).toBe(t.app.services.jobs.heldBack)
    const shares = t.app.services.jobs.shares
    expect(shares.map((s) => s.group)).toEqual(expect.arrayContaining(['shared', 'outgoing.send']))
    for (const { group, share } of shares)
      expect(sampleValue(samples, 'workpay_jobs_share', { group })).toBe(share)
  })

  it.runIf(onPostgres)("answers the service's pool: its connections by state, none waiting", async () => {
    const samples = await scrape()
    const busy = sampleValue(samples, 'workpay_db_pool_connections', { state: 'busy' })
    const idle = sampleValue(samples, 'workpay_db_pool_connections', { state: 'idle' })
    expect(busy).toBeGreaterThanOrEqual(0)
    expect(idle).toBeGreaterThanOrEqual(0)
    expect(busy! + idle!).toBeLessThanOrEqual(t.database.pool()!.size)
    expect(sampleValue(samples, 'workpay_db_pool_waiting', {})).toBe(0)
  })

  it.runIf(onPostgres)('counts a caller waiting while every connection is busy', async () => {
    const url = (t.database as Database & { url?: string }).url!
    const small = openPostgres(url, 2)
    const metrics = new Metrics({
      db: small.db,
      chain: () => undefined,
      log: pino({ level: 'silent' }),
      timeoutMs: 5000,
      pool: small.pool,
    })
    const series = async () => [
      ...parseExposition(await metrics.registry.getSingleMetricAsString('workpay_db_pool_connections')),
      ...parseExposition(await metrics.registry.getSingleMetricAsString('workpay_db_pool_waiting')),
    ]
    try {
      const held = [
        await heldOpen(small.db, (tx) => sql`select 1`.execute(tx)),
        await heldOpen(small.db, (tx) => sql`select 1`.execute(tx)),
      ]
      const third = sql<{ n: number }>`select 3 as n`.execute(small.db)
      // the third asks the pool for a connection a few turns of the event loop later
      for (let i = 0; i < 100 && small.pool()!.waiting === 0; i++) await new Promise((r) => setImmediate(r))
      expect(small.pool()).toEqual({ open: 2, idle: 0, waiting: 1, size: 2 })
      const busy = await series()
      expect(sampleValue(busy, 'workpay_db_pool_connections', { state: 'busy' })).toBe(2)
      expect(sampleValue(busy, 'workpay_db_pool_connections', { state: 'idle' })).toBe(0)
      expect(sampleValue(busy, 'workpay_db_pool_waiting', {})).toBe(1)

      await held[0]!.release()
      expect((await third).rows).toEqual([{ n: 3 }])
      await held[1]!.release()
      const after = await series()
      expect(sampleValue(after, 'workpay_db_pool_connections', { state: 'busy' })).toBe(0)
      expect(sampleValue(after, 'workpay_db_pool_connections', { state: 'idle' })).toBe(2)
      expect(sampleValue(after, 'workpay_db_pool_waiting', {})).toBe(0)
    } finally {
      await small.close()
    }
  })
})
