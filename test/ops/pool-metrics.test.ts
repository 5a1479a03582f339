// GET /metrics counts this process's pooled PostgreSQL connections by state and the callers waiting
// for one: a pool too small for the process's work shows as waiting callers before it shows as
// slow answers. The embedded database has no pool (one connection): no such series there.
import { sql } from 'kysely'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openPostgres } from '../../src/db/index.ts'
import { asBackground } from '../../src/db/priority-pool.ts'
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

/** A pool of two connections on the test's database, and the samples of `names` it reports. */
function poolOfTwo(names: string[]) {
  const small = openPostgres((t.database as Database & { url?: string }).url!, 2)
  const metrics = new Metrics({
    db: small.db,
    chain: () => undefined,
    log: pino({ level: 'silent' }),
    timeoutMs: 5000,
    pool: small.pool,
  })
  const series = async () => {
    const all = await Promise.all(names.map((n) => metrics.registry.getSingleMetricAsString(n)))
    return all.flatMap((text) => parseExposition(text))
  }
  return { small, series }
}

describe('connection pool metrics', () => {
  it.runIf(!onPostgres)('has no pool series on the embedded database', async () => {
    expect(t.database.pool()).toBeUndefined()
    const samples = await scrape()
    expect(samples.some((s) => s.name.startsWith('workpay_db_pool'))).toBe(false)
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
    const { small, series } = poolOfTwo(['workpay_db_pool_connections', 'workpay_db_pool_waiting'])
    try {
      const held = [
        await heldOpen(small.db, (tx) => sql`select 1`.execute(tx)),
        await heldOpen(small.db, (tx) => sql`select 1`.execute(tx)),
      ]
      const third = sql<{ n: number }>`select 3 as n`.execute(small.db)
      // the third asks the pool for a connection a few turns of the event loop later
      for (let i = 0; i < 100 && small.pool()!.waiting === 0; i++) await new Promise((r) => setImmediate(r))
      expect(small.pool()).toEqual({
        open: 2,
        idle: 0,
        waiting: 1,
        size: 2,
        background: 0,
        backgroundWaits: 0,
      })
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

  it.runIf(onPostgres)(
    'counts the connections lent to jobs and the times a job left one to requests',
    async () => {
      // jobs take one connection of two at once, and the second only when no request wants it
      const { small, series } = poolOfTwo([
        'workpay_db_pool_job_connections',
        'workpay_db_pool_job_waits_total',
      ])
      try {
        const first = await asBackground(() => heldOpen(small.db, (tx) => sql`select 1`.execute(tx)))
        const second = asBackground(() => sql<{ n: number }>`select 2 as n`.execute(small.db))
        for (let i = 0; i < 100 && small.pool()!.backgroundWaits === 0; i++)
          await new Promise((r) => setImmediate(r))
        const waiting = await series()
        expect(sampleValue(waiting, 'workpay_db_pool_job_connections', {})).toBe(1)
        expect(sampleValue(waiting, 'workpay_db_pool_job_waits_total', {})).toBe(1)
        // a request takes the connection the second job left to it
        expect((await sql<{ n: number }>`select 1 as n`.execute(small.db)).rows).toEqual([{ n: 1 }])
        await first.release()
        expect((await second).rows).toEqual([{ n: 2 }])
        const after = await series()
        expect(sampleValue(after, 'workpay_db_pool_job_connections', {})).toBe(0)
        expect(sampleValue(after, 'workpay_db_pool_job_waits_total', {})).toBe(1)
      } finally {
        await small.close()
      }
    },
  )
})
