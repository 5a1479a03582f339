// Requests before jobs for the pooled PostgreSQL connections (src/db/priority-pool.ts): work the
// job worker's loop started takes a connection at once within its minimum share, within its maximum
// only when one is free and no request waits, and otherwise after a request or a timer; a request
// is never queued behind it. On real PostgreSQL pools of four connections (a share of 1 to 3).
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { asBackground, backgroundShare, inBackground, PriorityPool } from '../../src/db/priority-pool.ts'
import { type ScratchPostgres, scratchPostgres } from '../helpers/postgres.ts'

describe('the background share of a pool', () => {
  it('keeps a fifth of the pool for jobs and a fifth for requests, at least one connection each', () => {
    expect(backgroundShare(10)).toMatchObject({ min: 2, max: 8 })
    expect(backgroundShare(4)).toMatchObject({ min: 1, max: 3 })
    expect(backgroundShare(1)).toMatchObject({ min: 1, max: 1 })
    expect(backgroundShare(20, 500)).toEqual({ min: 4, max: 16, maxDelayMs: 500 })
  })

  it('follows background work through awaits and timers, and nothing else', async () => {
    expect(inBackground()).toBe(false)
    const seen = await asBackground(async () => {
      await Promise.resolve()
      const afterAwait = inBackground()
      const inTimer = await new Promise<boolean>((resolve) => setTimeout(() => resolve(inBackground()), 1))
      return { afterAwait, inTimer }
    })
    expect(seen).toEqual({ afterAwait: true, inTimer: true })
    expect(inBackground()).toBe(false)
  })
})

describe.runIf(process.env.TEST_DB === 'postgres')('a pool that serves requests before jobs', () => {
  let scratch: ScratchPostgres
  let pool: PriorityPool | undefined

  beforeAll(async () => {
    scratch = await scratchPostgres('wp_priority')
  })
  afterEach(async () => {
    await pool?.end()
    pool = undefined
  })
  afterAll(async () => {
    await scratch.drop()
  })

  function open(maxDelayMs = 60_000) {
    pool = new PriorityPool(new pg.Pool({ connectionString: scratch.url, max: 4 }), 4, {
      ...backgroundShare(4),
      maxDelayMs,
    })
    return pool
  }
  const request = (p: PriorityPool) => p.connect()
  const job = (p: PriorityPool) => asBackground(() => p.connect())
  /** Records the order in which connections were lent. */
  function lentOrder() {
    const order: string[] = []
    const track = (name: string, lent: Promise<pg.PoolClient>) =>
      lent.then((client) => {
        order.push(name)
        return client
      })
    return { order, track }
  }
  /** Lets pg and the pool hand over what a release frees. */
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
  }

  it('lends a freed connection to a waiting request before a job beyond its minimum', async () => {
    const p = open()
    const { order, track } = lentOrder()
    const j0 = await job(p) // the job's minimum: one connection whatever requests do
    const held = await Promise.all([request(p), request(p), request(p)])
    expect(p.background).toBe(1)
    const j1 = track('job', job(p)) // every connection busy: the job waits its turn
    await settle()
    const r4 = track('request', request(p)) // a request asks after it
    await settle()
    expect(order).toEqual([])
    expect(p.backgroundWaits).toBe(1)

    held[0]!.release()
    await settle()
    expect(order).toEqual(['request'])
    held[1]!.release()
    await settle()
    expect(order).toEqual(['request', 'job'])
    expect(p.background).toBe(2)

    for (const c of [j0, held[2]!, await r4, await j1]) c.release()
    await settle()
    expect(p.background).toBe(0)
    expect(p.pool.idleCount).toBe(4)
  })

  it('lends a job its minimum at once even while requests wait', async () => {
    const p = open()
    const held = await Promise.all([request(p), request(p), request(p), request(p)])
    const { order, track } = lentOrder()
    const r5 = track('request', request(p))
    const j = track('job', job(p))
    await settle()
    expect(p.backgroundWaits).toBe(0) // not held back: it queues with the requests
    held[0]!.release()
    held[1]!.release()
    await settle()
    expect(order).toEqual(['request', 'job'])
    for (const c of [...held.slice(2), await r5, await j]) c.release()
  })

  it('keeps one connection for requests however many jobs ask', async () => {
    const p = open()
    const jobs = await Promise.all([job(p), job(p), job(p)])
    expect(p.background).toBe(3)
    let fourth: pg.PoolClient | undefined
    const waiting = job(p).then((c) => {
      fourth = c
      return c
    })
    await settle()
    expect(fourth).toBeUndefined()
    expect(p.pool.idleCount + (4 - p.pool.totalCount)).toBeGreaterThan(0)
    const r = await request(p) // the connection kept for requests
    jobs[0]!.release()
    await settle()
    expect(fourth).toBeDefined()
    for (const c of [...jobs.slice(1), r, await waiting]) c.release()
  })

  it('lends a job a connection after its longest wait, however busy the requests', async () => {
    const p = open(50)
    const jobs = await Promise.all([job(p), job(p), job(p)])
    // the fourth connection is free but kept for requests; after 50 ms the job takes it anyway
    const late = await job(p)
    expect(p.background).toBe(4)
    expect(p.backgroundWaits).toBe(1)
    for (const c of [...jobs, late]) c.release()
  })

  it('gives the count back when a job cannot connect', async () => {
    pool = new PriorityPool(new pg.Pool({ connectionString: `${scratch.url}_absent`, max: 4 }), 4)
    await expect(asBackground(() => pool!.connect())).rejects.toThrow()
    expect(pool.background).toBe(0)
  })
})
