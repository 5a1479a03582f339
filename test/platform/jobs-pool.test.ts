// The job worker is a pool, not a batch (both drivers): a job that runs for long holds its own
// slot only, every other slot takes the next ready job as soon as it frees; a kind with slots of
// its own is never starved by a busy kind and never runs more jobs at once than its limit.
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

declare module '../../src/platform/jobs/queue.ts' {
  interface JobPayloads {
    [kind: `pool.test.${string}`]: { n?: number }
  }
}

let kindSeq = 0
const uniqueKind = () => `pool.test.${process.pid}.${kindSeq++}` as const

function queue() {
  const q = new JobQueue(database.db, pino({ level: 'silent' }), systemClock)
  // The loop's timer is never what claims a job here: every claim follows an event (a job
  // enqueued in this process, a slot freed).
  return q
}

/** A promise resolved from outside. */
function deferred<T = void>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

/** Counts finished jobs and resolves `reached(n)` when there are n. */
function counter() {
  let n = 0
  const waits: { n: number; resolve: () => void }[] = []
  return {
    get value() {
      return n
    },
    add() {
      n++
      for (const w of waits.filter((w) => w.n <= n)) w.resolve()
    },
    reached(target: number) {
      if (n >= target) return Promise.resolve()
      const d = deferred()
      waits.push({ n: target, resolve: d.resolve })
      return d.promise
    },
  }
}

const statusOf = async (id: string) =>
  (await database.db.selectFrom('jobs').select('status').where('id', '=', id).executeTakeFirstOrThrow())
    .status

const countByStatus = async (kind: string, status: 'queued' | 'running' | 'done') =>
  Number(
    (
      await database.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('kind', '=', kind)
        .where('status', '=', status)
        .executeTakeFirstOrThrow()
    ).n,
  )

describe('the job pool', () => {
  it('keeps claiming and finishing other jobs while one job runs for long (worker loop)', async () => {
    const q = queue()
    q.concurrency = 3
    const slowKind = uniqueKind()
    const fastKind = uniqueKind()
    const slowStarted = deferred()
    const release = deferred()
    const fast = counter()
    let running = 0
    let most = 0
    q.register(slowKind, async () => {
      slowStarted.resolve()
      await release.promise
    })
    q.register(fastKind, async () => {
      running++
      most = Math.max(most, running)
      await Promise.resolve()
      running--
      fast.add()
    })
    const slowId = await q.enqueue(database.db, slowKind, {})
    q.start(3_600_000)
    try {
      await slowStarted.promise
      // Far more jobs than slots: they can only all finish by reusing the slots that free up.
      for (let n = 0; n < 25; n++) await q.enqueue(database.db, fastKind, { n })
      await fast.reached(25)
      // The other jobs finished while the slow one is still running.
      expect(await statusOf(slowId)).toBe('running')
      expect(fast.value).toBe(25)
      // never more than the two slots the slow job left free
      expect(most).toBeLessThanOrEqual(2)
    } finally {
      release.resolve()
      await q.stop()
    }
    expect(await statusOf(slowId)).toBe('done')
    expect(await countByStatus(fastKind, 'done')).toBe(25)
  })

  it('asks a pool found short again at the end of its claim gap, not at the next tick (worker loop)', async () => {
    // Each job enqueues the next just after the pool was found without more ready jobs: the
    // wake-ups that follow fall inside the pool's claim gap, and only the wake-up at the gap's end
    // claims the next job (the loop's own tick is an hour away).
    const q = queue()
    const kind = uniqueKind()
    const done = counter()
    q.register(kind, async (payload) => {
      const n = payload.n ?? 0
      if (n < 20) await q.enqueue(database.db, kind, { n: n + 1 })
      done.add()
    })
    q.start(3_600_000)
    try {
      await q.enqueue(database.db, kind, { n: 0 })
      await done.reached(21)
    } finally {
      await q.stop()
    }
    expect(await countByStatus(kind, 'done')).toBe(21)
  })

  it("runUntilIdle (the tests' drain) runs a job that waits for jobs enqueued after it", async () => {
    // A batch that waited for all its jobs would never end here: the first job only ends once 30
    // jobs behind it (more than any batch takes) have run.
    const q = queue()
    q.concurrency = 4
    const waiterKind = uniqueKind()
    const workKind = uniqueKind()
    const work = counter()
    q.register(waiterKind, async () => {
      for (let n = 0; n < 30; n++) await q.enqueue(database.db, workKind, { n })
      await work.reached(30)
    })
    q.register(workKind, async () => {
      work.add()
    })
    const id = await q.enqueue(database.db, waiterKind, {})
    await q.runUntilIdle()
    expect(work.value).toBe(30)
    expect(await statusOf(id)).toBe('done')
    expect(await countByStatus(workKind, 'done')).toBe(30)
  })
})

describe('per-kind concurrency', () => {
  it('a kind with slots of its own runs while the shared slots are all busy, and never beyond its limit', async () => {
    const q = queue()
    q.concurrency = 2
    const hogKind = uniqueKind()
    const ownKind = uniqueKind()
    const release = deferred()
    const hogsRunning = counter()
    const own = counter()
    const ownStarted = counter()
    let ownRunning = 0
    let ownMost = 0
    q.register(hogKind, async () => {
      hogsRunning.add()
      await release.promise
    })
    // Two slots of its own; its jobs hold them until released.
    const holdOwn = deferred()
    q.register(
      ownKind,
      async () => {
        ownRunning++
        ownMost = Math.max(ownMost, ownRunning)
        ownStarted.add()
        await holdOwn.promise
        ownRunning--
        own.add()
      },
      { concurrency: 2 },
    )
    for (let n = 0; n < 4; n++) await q.enqueue(database.db, hogKind, { n })
    q.start(3_600_000)
    try {
      // Every shared slot is taken by a job that does not end, and more such jobs wait.
      await hogsRunning.reached(2)
      expect(await countByStatus(hogKind, 'queued')).toBe(2)

      // The kind with its own slots still runs, up to its limit.
      for (let n = 0; n < 5; n++) await q.enqueue(database.db, ownKind, { n })
      await ownStarted.reached(2)
      // Both its slots are taken: the other three wait for them, not for a shared slot.
      expect(await countByStatus(ownKind, 'running')).toBe(2)
      expect(await countByStatus(ownKind, 'queued')).toBe(3)

      // Its slots free up and take the rest, while the shared slots are still held.
      holdOwn.resolve()
      await own.reached(5)
      expect(ownMost).toBe(2)
      expect(hogsRunning.value).toBe(2)
      expect(await countByStatus(hogKind, 'running')).toBe(2)
    } finally {
      release.resolve()
      await q.stop()
    }
  })
})
