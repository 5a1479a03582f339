// The job worker of a process that also answers requests gives way to them for pooled PostgreSQL
// connections (`JobQueue.yieldTo`): while a request waits for a connection each group of slots runs
// no more than its share (one, more while its jobs start late), and otherwise the jobs keep a fifth
// of the pool free. Without a pool (the embedded database) it starts what its slots allow. Both
// drivers; the pool is a real one.
import { sql } from 'kysely'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openPostgres } from '../../src/db/index.ts'
import { systemClock } from '../../src/platform/clock.ts'
import { lateness, Pools, roomBesideRequests } from '../../src/platform/jobs/pools.ts'
import { JobQueue } from '../../src/platform/jobs/queue.ts'
import { Metrics } from '../../src/platform/metrics/index.ts'
import { openTestDatabase } from '../helpers/app.ts'
import { type HeldTransaction, heldOpen } from '../helpers/held-transaction.ts'
import { parseExposition, sampleValue } from '../ops/prometheus.ts'

declare module '../../src/platform/jobs/queue.ts' {
  interface JobPayloads {
    [kind: `yield.test.${string}`]: { n: number }
  }
}

let database: Database & { url?: string }
beforeAll(async () => {
  database = await openTestDatabase()
})
afterAll(async () => {
  await database?.close()
})

describe('room for jobs beside requests', () => {
  it('is none while a caller waits, all but a fifth of the pool otherwise, unlimited without a pool', () => {
    expect(roomBesideRequests({ waiting: 1, size: 10 }, 0)).toBe(0)
    expect(roomBesideRequests({ waiting: 0, size: 10 }, 0)).toBe(8)
    expect(roomBesideRequests({ waiting: 0, size: 10 }, 5)).toBe(3)
    expect(roomBesideRequests({ waiting: 0, size: 10 }, 9)).toBe(0)
    expect(roomBesideRequests({ waiting: 0, size: 2 }, 0)).toBe(1)
    expect(roomBesideRequests(undefined, 100)).toBe(Number.POSITIVE_INFINITY)
    // a caller waits: the group's share beyond what it runs, within all but a fifth of the pool
    expect(roomBesideRequests({ waiting: 1, size: 10 }, 0, 3)).toBe(3)
    expect(roomBesideRequests({ waiting: 1, size: 10 }, 6, 3)).toBe(2)
    expect(roomBesideRequests({ waiting: 1, size: 10 }, 2, -1)).toBe(0)
    expect(roomBesideRequests({ waiting: 0, size: 10 }, 0, 3)).toBe(8)
  })

  it('measures how late the earliest due of the claimed jobs starts', () => {
    const now = new Date('2026-01-01T00:00:10Z')
    expect(lateness([], now)).toBe(0)
    expect(
      lateness(
        [{ runAt: new Date('2026-01-01T00:00:07Z') }, { runAt: new Date('2026-01-01T00:00:02Z') }],
        now,
      ),
    ).toBe(8000)
    // due later than now (a clock a little behind the one that enqueued): not late
    expect(lateness([{ runAt: new Date('2026-01-01T00:00:11Z') }], now)).toBe(0)
  })

  it("raises a group's share while its jobs start late, lowers it as they start on time, resets it once caught up", () => {
    const pools = new Pools()
    pools.sharedSize = 3
    pools.assign('shared', undefined)
    const [pool] = pools.list()
    const busy = { waiting: 2, size: 10 }
    const late = { asked: 1, got: 1, lateMs: 6000, limitMs: 5000 }
    expect(pool!.share).toBe(1)
    expect(pools.shares()).toEqual([{ group: 'shared', share: 1 }])
    pools.claimed(pool!, late)
    pools.claimed(pool!, late)
    expect(pool!.share).toBe(3)
    pool!.busy = 1
    expect(pools.startable(pool!, busy)).toBe(2)
    // never beyond the group's slots
    pools.claimed(pool!, late)
    expect(pool!.share).toBe(3)
    // on time again, but not within half the limit: kept; within it: lowered by one
    pools.claimed(pool!, { ...late, lateMs: 4000 })
    expect(pool!.share).toBe(3)
    pools.claimed(pool!, { ...late, lateMs: 100 })
    expect(pool!.share).toBe(2)
    expect(pools.startable(pool!, busy)).toBe(1)
    // a claim that found fewer ready jobs than it asked for: caught up
    pools.claimed(pool!, { ...late, asked: 2 })
    expect(pool!.share).toBe(1)
    expect(pools.startable(pool!, busy)).toBe(0)
  })

  it('lets each group of slots start one job when it runs none, however busy the requests', () => {
    const pools = new Pools()
    pools.sharedSize = 4
    pools.assign('own', 2)
    pools.assign('shared', undefined)
    const [own, shared] = pools.list()
    const busy = { waiting: 3, size: 10 }
    expect(pools.startable(own!, busy)).toBe(1)
    own!.busy = 1
    expect(pools.startable(own!, busy)).toBe(0)
    expect(pools.startable(shared!, busy)).toBe(1)
    // no request waits: the free slots, up to all but a fifth of the pool across the groups (the
    // other group's part of it that it does not run yet kept for it: of 4, 2 each)
    expect(pools.startable(shared!, { waiting: 0, size: 10 })).toBe(4)
    expect(pools.startable(shared!, { waiting: 0, size: 5 })).toBe(2)
    own!.shortAt = Date.now()
    expect(pools.startable(shared!, { waiting: 0, size: 5 })).toBe(3)
    expect(pools.startable(shared!, undefined)).toBe(4)
  })

  it('keeps each group with ready jobs its part of the room, and gives the part of an idle group away', () => {
    const pools = new Pools()
    pools.sharedSize = 10
    pools.assign('sends', 8)
    pools.assign('topups', 2)
    pools.assign('reports', undefined)
    const [sends, topups, shared] = pools.list()
    const idle = { waiting: 0, size: 10 }
    // 8 of 10 for jobs, three groups: a part of 3 each (2 for the group of 2 slots)
    expect(pools.startable(sends!, idle)).toBe(3)
    sends!.busy = 3
    expect(pools.startable(topups!, idle)).toBe(2)
    topups!.busy = 2
    expect(pools.startable(shared!, idle)).toBe(3)
    shared!.busy = 3
    expect(pools.startable(sends!, idle)).toBe(0)
    // the sends' backlog does not take the reports' part while the reports have ready jobs
    shared!.busy = 1
    expect(pools.startable(sends!, idle)).toBe(0)
    expect(pools.startable(shared!, idle)).toBe(2)
    // the reports found fewer ready jobs than they asked for: their part is free for the sends
    shared!.shortAt = Date.now()
    expect(pools.startable(sends!, idle)).toBe(2)
    // still one for a group that runs none, however full the room
    sends!.busy = 6
    shared!.busy = 0
    shared!.shortAt = undefined
    expect(pools.startable(shared!, idle)).toBe(1)
  })
})

/** Resolves when `check` holds, looking every 5 ms (at most 30 s). */
async function until(check: () => boolean | Promise<boolean>) {
  const end = Date.now() + 30_000
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** A worker loop on the test database with `n` jobs of a kind of its own, each running until `finish`. */
async function blockedJobs(n: number, slots: number, dueAgoMs = 0) {
  const q = new JobQueue(database.db, pino({ level: 'silent' }), systemClock)
  q.concurrency = slots
  const kind = `yield.test.${process.pid}.${n}.${slots}.${Math.random()}` as const
  let running = 0
  let most = 0
  let started = 0
  let finish!: () => void
  const finished = new Promise<void>((resolve) => {
    finish = resolve
  })
  q.register(kind, async () => {
    started++
    running++
    most = Math.max(most, running)
    await finished
    running--
  })
  const runAt = new Date(Date.now() - dueAgoMs)
  for (let i = 0; i < n; i++) await q.enqueue(database.db, kind, { n: i }, { runAt })
  return {
    q,
    finish,
    get started() {
      return started
    },
    get most() {
      return most
    },
  }
}

it('starts what its slots allow where the database has no pool, and always on the test pool of 20', async () => {
  const jobs = await blockedJobs(4, 4)
  jobs.q.yieldTo(database.pool)
  jobs.q.start(3_600_000)
  try {
    await until(() => jobs.started === 4)
    expect(jobs.q.heldBack).toBe(0)
  } finally {
    jobs.finish()
    await jobs.q.stop()
  }
})

/** A pool of 5 connections, each held by an open transaction, and one caller waiting for it. */
async function exhaustedPool() {
  const small = openPostgres(database.url!, 5)
  const held: HeldTransaction<unknown>[] = []
  for (let i = 0; i < 5; i++) held.push(await heldOpen(small.db, (tx) => sql`select 1`.execute(tx)))
  const waiting = sql`select 1`.execute(small.db)
  await until(() => small.pool()!.waiting === 1)
  return {
    small,
    /** ends the held transactions; resolves once the waiting caller got its connection and answer */
    async release() {
      for (const h of held) await h.release()
      await waiting
    },
  }
}

/** The value of `name` (no labels but `labels`) in a scrape of metrics with `deps`. */
async function metricOf(name: string, deps: Partial<ConstructorParameters<typeof Metrics>[0]>, labels = {}) {
  const metrics = new Metrics({
    db: database.db,
    chain: () => undefined,
    log: pino({ level: 'silent' }),
    timeoutMs: 5000,
    ...deps,
  })
  return sampleValue(parseExposition(await metrics.registry.getSingleMetricAsString(name)), name, labels)
}

describe.runIf(process.env.TEST_DB === 'postgres')('a worker beside requests on PostgreSQL', () => {
  it('starts one job while a request waits for a connection, and the rest once none waits', async () => {
    const busy = await exhaustedPool()
    const jobs = await blockedJobs(4, 4)
    jobs.q.yieldTo(busy.small.pool)
    try {
      jobs.q.start(3_600_000)
      // the loop looks several times and holds back all but the group's one job
      await until(() => jobs.started === 1 && jobs.q.heldBack >= 3)
      expect(jobs.started).toBe(1)
      await busy.release()
      // nobody waits: up to all but a fifth of the pool (4 of 5) run at once
      await until(() => jobs.started === 4)
      expect(jobs.most).toBe(4)
      const heldBack = await metricOf('workpay_jobs_held_back_total', { jobsHeldBack: () => jobs.q.heldBack })
      expect(heldBack).toBe(jobs.q.heldBack)
    } finally {
      jobs.finish()
      await jobs.q.stop()
      await busy.small.close()
    }
  })

  it('keeps a fifth of the pool free of jobs when no request waits', async () => {
    const small = openPostgres(database.url!, 5)
    const jobs = await blockedJobs(6, 6)
    jobs.q.yieldTo(small.pool)
    jobs.q.start(3_600_000)
    try {
      await until(() => jobs.started === 4 && jobs.q.heldBack >= 3)
      expect(jobs.started).toBe(4)
      jobs.finish()
      await until(() => jobs.started === 6)
      expect(jobs.most).toBe(4)
    } finally {
      jobs.finish()
      await jobs.q.stop()
      await small.close()
    }
  })

  it('lets a group whose jobs start late run more while a request waits, within all but a fifth of the pool', async () => {
    const busy = await exhaustedPool()
    // due a minute ago: each claim finds them over `lateAfterMs` late
    const jobs = await blockedJobs(6, 6, 60_000)
    jobs.q.yieldTo(busy.small.pool)
    try {
      jobs.q.start(3_600_000)
      // the share grows by one a claim: 4 of the pool's 5 connections, and no more
      await until(() => jobs.started === 4)
      const looks = jobs.q.heldBack
      await until(() => jobs.q.heldBack >= looks + 3)
      expect(jobs.started).toBe(4)
      expect(busy.small.pool()!.waiting).toBe(1)
      // raised at each of the four claims; no claim since (no room)
      expect(jobs.q.shares).toEqual([{ group: 'shared', share: 5 }])
      const share = await metricOf(
        'workpay_jobs_share',
        { jobsShares: () => jobs.q.shares },
        { group: 'shared' },
      )
      expect(share).toBe(5)
      await busy.release()
    } finally {
      jobs.finish()
      await jobs.q.stop()
      await busy.small.close()
    }
  })
})
