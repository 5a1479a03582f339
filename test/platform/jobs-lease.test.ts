// Job leases on a real database (both drivers): a claim lasts `leaseMs` unless its worker renews
// it; a job whose worker stopped renewing is claimed again, a live one never is, and a worker that
// lost its claim can neither keep renewing nor record an outcome over the next claimant's.
import { Writable } from 'node:stream'
import { sql } from 'kysely'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/index.ts'
import { systemClock } from '../../src/platform/clock.ts'
import { JobQueue } from '../../src/platform/jobs/queue.ts'
import { openTestDatabase } from '../helpers/app.ts'

let database: Database
beforeAll(async () => {
  database = await openTestDatabase()
})
afterAll(async () => {
  await database?.close()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A queue with its own log lines, for one job kind. */
function worker(opts: { leaseMs: number; heartbeatMs: number }) {
  const lines: { msg: string; jobId?: string }[] = []
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l))
      done()
    },
  })
  const queue = new JobQueue(database.db, pino({ level: 'info' }, sink), systemClock)
  queue.leaseMs = opts.leaseMs
  queue.heartbeatMs = opts.heartbeatMs
  return { queue, lines }
}

/** A handler that runs until released. */
function gate() {
  let release!: () => void
  let started!: () => void
  const released = new Promise<void>((r) => {
    release = r
  })
  const running = new Promise<void>((r) => {
    started = r
  })
  return { release, running, started, released }
}

let kindSeq = 0
declare module '../../src/platform/jobs/queue.ts' {
  interface JobPayloads {
    [kind: `lease.test.${string}`]: { n?: number }
  }
}

const uniqueKind = () => `lease.test.${process.pid}.${kindSeq++}` as const

const jobRow = (id: string) =>
  database.db
    .selectFrom('jobs')
    .select(['status', 'attempts', 'lockedUntil', 'lastError'])
    .where('id', '=', id)
    .executeTakeFirst()

const dbNow = async () =>
  (await sql<{ now: Date }>`select now() as now`.execute(database.db)).rows[0]!.now.getTime()

describe('job leases', () => {
  it('claims a job for leaseMs on the database clock and renews the lease while it runs', async () => {
    const kind = uniqueKind()
    const a = worker({ leaseMs: 2000, heartbeatMs: 100 })
    const g = gate()
    a.queue.register(kind, async () => {
      g.started()
      await g.released
    })
    const id = await a.queue.enqueue(database.db, kind, {})
    const run = a.queue.runOnce()
    await g.running
    const claimed = (await jobRow(id))!
    expect(claimed.status).toBe('running')
    const left = claimed.lockedUntil!.getTime() - (await dbNow())
    expect(left).toBeGreaterThan(1000)
    expect(left).toBeLessThanOrEqual(2000)
    await sleep(400)
    const renewed = (await jobRow(id))!
    expect(renewed.lockedUntil!.getTime()).toBeGreaterThan(claimed.lockedUntil!.getTime())
    g.release()
    expect(await run).toBe(1)
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 1, lockedUntil: null })
  })

  it('claims again a job whose worker stopped renewing, and the late worker cannot overwrite the outcome', async () => {
    const kind = uniqueKind()
    // A claims the job and then never renews (a frozen or dead process); B is a healthy worker.
    const a = worker({ leaseMs: 500, heartbeatMs: 3_600_000 })
    const b = worker({ leaseMs: 500, heartbeatMs: 100 })
    const g = gate()
    const ran: string[] = []
    a.queue.register(kind, async () => {
      ran.push('a')
      g.started()
      await g.released
      throw new Error('A fails late')
    })
    b.queue.register(kind, async () => {
      ran.push('b')
    })
    const id = await a.queue.enqueue(database.db, kind, {})
    const runA = a.queue.runOnce()
    await g.running
    // while the lease holds, nobody else takes the job
    expect(await b.queue.runOnce()).toBe(0)
    await sleep(700)
    expect(await b.queue.runOnce()).toBe(1)
    expect(ran).toEqual(['a', 'b'])
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 2 })

    // A's run ends (with a failure): it must not requeue or fail the job B completed.
    g.release()
    await runA
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 2, lastError: null })
    expect(a.lines.some((l) => l.msg.includes('lease was lost') && l.jobId === id)).toBe(true)
  })

  it('never claims a live job twice, however long it runs', async () => {
    const kind = uniqueKind()
    // Two healthy workers poll for the same job at once; either may claim it first. Its run lasts
    // until the lease it was claimed with has lapsed several times over on the database clock and
    // the other worker has polled since: only the renewals keep the job from being claimed again.
    // A lease of a second renewed every quarter of it: a renewal a few hundred milliseconds late on
    // a loaded machine (the database answering slowly) is still in time, as in production, where
    // leases are longer still.
    const leaseMs = 1000
    const workers = { a: worker({ leaseMs, heartbeatMs: 250 }), b: worker({ leaseMs, heartbeatMs: 250 }) }
    const names = ['a', 'b'] as const
    const g = gate()
    const ran: string[] = []
    for (const name of names)
      workers[name].queue.register(kind, async () => {
        ran.push(name)
        g.started()
        await g.released
      })
    const id = await workers.a.queue.enqueue(database.db, kind, {})
    let finished = false
    const polls = { a: 0, b: 0 }
    const pollUntilFinished = async (name: (typeof names)[number]) => {
      let claimed = 0
      while (!finished) {
        claimed += await workers[name].queue.runOnce()
        polls[name]++
        await sleep(20)
      }
      return claimed
    }
    const claiming = Promise.all(names.map(pollUntilFinished))
    await g.running
    const winner = ran[0] === 'a' ? 'a' : 'b'
    const other = winner === 'a' ? 'b' : 'a'
    // (read after the claim: its first lease, or a renewal of it, which ends later still)
    const firstLeaseEnd = (await jobRow(id))!.lockedUntil!.getTime()
    while (ran.length === 1 && (await dbNow()) <= firstLeaseEnd + 3 * leaseMs) await sleep(20)
    // two whole polls of the other worker after that point (one may have been under way)
    const pollsBefore = polls[other]
    while (ran.length === 1 && polls[other] < pollsBefore + 3) await sleep(20)
    finished = true
    g.release()
    const [claimedByA, claimedByB] = await claiming

    expect(ran).toEqual([winner])
    expect({ a: claimedByA, b: claimedByB }).toEqual({ [winner]: 1, [other]: 0 })
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 1 })
    for (const name of names) expect(workers[name].lines.filter((l) => l.msg.includes('lease'))).toEqual([])
  })

  it('a worker whose renewal finds the job claimed by someone else logs it and stops renewing', async () => {
    const kind = uniqueKind()
    const a = worker({ leaseMs: 10_000, heartbeatMs: 100 })
    const g = gate()
    a.queue.register(kind, async () => {
      g.started()
      await g.released
    })
    const id = await a.queue.enqueue(database.db, kind, {})
    const runA = a.queue.runOnce()
    await g.running
    // another worker's claim, as the queue writes it (attempt 2, a lease of its own)
    const theirs = new Date(Date.now() + 60_000)
    await database.db
      .updateTable('jobs')
      .set({ attempts: sql`attempts + 1`, lockedUntil: theirs })
      .where('id', '=', id)
      .execute()
    await sleep(400)
    expect(a.lines.filter((l) => l.msg.startsWith('job lease lost') && l.jobId === id)).toHaveLength(1)
    // its lease is the other claimant's, untouched by A
    expect((await jobRow(id))!.lockedUntil!.getTime()).toBe(theirs.getTime())
    g.release()
    await runA
    expect(await jobRow(id)).toMatchObject({ status: 'running', attempts: 2 })
    await database.db.deleteFrom('jobs').where('id', '=', id).execute()
  })

  it('releaseAbandoned() makes jobs left running claimable at once (the embedded database at start-up)', async () => {
    const kind = uniqueKind()
    const a = worker({ leaseMs: 60_000, heartbeatMs: 1000 })
    const ran: number[] = []
    a.queue.register(kind, async () => {
      ran.push(1)
    })
    const id = await a.queue.enqueue(database.db, kind, {})
    // as a process that claimed it and died leaves it: running, with most of its lease ahead
    await database.db
      .updateTable('jobs')
      .set({ status: 'running', attempts: 1, lockedUntil: new Date(Date.now() + 60_000) })
      .where('id', '=', id)
      .execute()
    expect(await a.queue.runOnce()).toBe(0)
    expect(await a.queue.releaseAbandoned()).toBeGreaterThanOrEqual(1)
    expect(await a.queue.runOnce()).toBe(1)
    expect(ran).toEqual([1])
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 2 })
  })

  it('the worker loop claims a job whose lease lapsed, looking for such jobs now and then', async () => {
    const kind = uniqueKind()
    const a = worker({ leaseMs: 3000, heartbeatMs: 1000 })
    const ran: number[] = []
    let ranIt!: () => void
    const finished = new Promise<void>((r) => {
      ranIt = r
    })
    let ranFirst!: () => void
    const first = new Promise<void>((r) => {
      ranFirst = r
    })
    a.queue.register(kind, async (payload) => {
      ran.push(payload.n ?? 0)
      if (payload.n === 0) ranFirst()
      if (payload.n === 1) ranIt()
    })
    // The loop's first claim looks for lapsed leases too, and runs the job due now; the other is
    // not due for an hour.
    const id = await a.queue.enqueue(database.db, kind, { n: 1 }, { runAt: new Date(Date.now() + 3_600_000) })
    await a.queue.enqueue(database.db, kind, { n: 0 })
    a.queue.start(20)
    try {
      await first
      // Now, as a worker that claimed it and died leaves it: running, its lease lapsed. The loop's
      // claims every 20 ms look only for due jobs; the next look for lapsed leases claims it.
      await database.db
        .updateTable('jobs')
        .set({ status: 'running', attempts: 1, lockedUntil: sql<Date>`now() - interval '1 second'` })
        .where('id', '=', id)
        .execute()
      await finished
    } finally {
      await a.queue.stop()
    }
    expect(ran).toEqual([0, 1])
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 2 })
  })

  it('stop() waits for the running job and claims nothing more', async () => {
    const kind = uniqueKind()
    const a = worker({ leaseMs: 5000, heartbeatMs: 1000 })
    const g = gate()
    const done: string[] = []
    a.queue.register(kind, async (payload) => {
      if (payload.n === 1) {
        g.started()
        await g.released
      }
      done.push(`job ${payload.n}`)
    })
    const first = await a.queue.enqueue(database.db, kind, { n: 1 })
    a.queue.start(20)
    await g.running
    const second = await a.queue.enqueue(database.db, kind, { n: 2 })
    let stopped = false
    const stopping = a.queue.stop().then(() => {
      stopped = true
    })
    await sleep(100)
    expect(stopped).toBe(false)
    g.release()
    await stopping
    expect(done).toEqual(['job 1'])
    expect(await jobRow(first)).toMatchObject({ status: 'done' })
    expect(await jobRow(second)).toMatchObject({ status: 'queued', attempts: 0 })
    await database.db.deleteFrom('jobs').where('id', '=', second).execute()
  })
})
