// `JobQueue.hasten` (both drivers): a job queued before under a known key is made due now instead
// of a second job being written beside it; where that job is no longer queued (running, done or
// never written), a job of its own is written under its dedupe key, once.
import pino from 'pino'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Database } from '../../src/db/index.ts'
import { systemClock } from '../../src/platform/clock.ts'
import { JobQueue } from '../../src/platform/jobs/queue.ts'
import { openTestDatabase } from '../helpers/app.ts'

let database: Database
let q: JobQueue
beforeAll(async () => {
  database = await openTestDatabase()
  q = new JobQueue(database.db, pino({ level: 'silent' }), systemClock)
})
afterAll(async () => {
  await database?.close()
})

declare module '../../src/platform/jobs/queue.ts' {
  interface JobPayloads {
    [kind: `hasten.test.${string}`]: { n: number }
  }
}

let seq = 0
const unique = () => `hasten.test.${process.pid}.${seq++}` as const

const byKey = (dedupeKey: string) =>
  database.db
    .selectFrom('jobs')
    .select(['id', 'kind', 'status', 'runAt', 'payload', 'maxAttempts'])
    .where('dedupeKey', '=', dedupeKey)
    .execute()

const payloadOf = (p: unknown) => (typeof p === 'string' ? JSON.parse(p) : p)

it('makes a queued job due now instead of writing another', async () => {
  const kind = unique()
  const now = new Date()
  const later = new Date(now.getTime() + 30_000)
  await q.enqueue(database.db, kind, { n: 1 }, { runAt: later, dedupeKey: `${kind}:run` })
  await q.hasten(
    database.db,
    [{ kind, payload: { n: 1 }, dedupeKey: `${kind}:woken`, current: `${kind}:run` }],
    now,
  )
  const [run] = await byKey(`${kind}:run`)
  expect(run!.status).toBe('queued')
  expect(new Date(run!.runAt).getTime()).toBe(now.getTime())
  expect(await byKey(`${kind}:woken`)).toHaveLength(0)
})

it('leaves a queued job that is due earlier as it is', async () => {
  const kind = unique()
  const now = new Date()
  const earlier = new Date(now.getTime() - 5_000)
  await q.enqueue(database.db, kind, { n: 1 }, { runAt: earlier, dedupeKey: `${kind}:run` })
  await q.hasten(
    database.db,
    [{ kind, payload: { n: 1 }, dedupeKey: `${kind}:woken`, current: `${kind}:run` }],
    now,
  )
  const [run] = await byKey(`${kind}:run`)
  expect(new Date(run!.runAt).getTime()).toBe(earlier.getTime())
  expect(await byKey(`${kind}:woken`)).toHaveLength(0)
})

it('writes a job of its own, once, where the known one is running, done or missing', async () => {
  const kind = unique()
  const now = new Date()
  const later = new Date(now.getTime() + 30_000)
  q.register(kind, async () => {}, { maxAttempts: 7 })
  await q.enqueue(database.db, kind, { n: 1 }, { runAt: later, dedupeKey: `${kind}:running` })
  await q.enqueue(database.db, kind, { n: 2 }, { runAt: later, dedupeKey: `${kind}:done` })
  // as a worker leaves them: one claimed (its lease running), one recorded done
  await database.db
    .updateTable('jobs')
    .set({ status: 'running', lockedUntil: later })
    .where('dedupeKey', '=', `${kind}:running`)
    .execute()
  await database.db
    .updateTable('jobs')
    .set({ status: 'done' })
    .where('dedupeKey', '=', `${kind}:done`)
    .execute()
  const wake = [
    { kind, payload: { n: 1 }, dedupeKey: `${kind}:woken:1`, current: `${kind}:running` },
    { kind, payload: { n: 2 }, dedupeKey: `${kind}:woken:2`, current: `${kind}:done` },
    { kind, payload: { n: 3 }, dedupeKey: `${kind}:woken:3`, current: `${kind}:never` },
  ]
  await database.db.transaction().execute((tx) => q.hasten(tx, wake, now))
  // the same wake again (a settlement retried) writes nothing more
  await database.db.transaction().execute((tx) => q.hasten(tx, wake, now))
  for (const n of [1, 2, 3]) {
    const rows = await byKey(`${kind}:woken:${n}`)
    expect(rows).toHaveLength(1)
    expect(rows[0]!.kind).toBe(kind)
    expect(rows[0]!.status).toBe('queued')
    expect(rows[0]!.maxAttempts).toBe(7)
    expect(payloadOf(rows[0]!.payload)).toEqual({ n })
    expect(new Date(rows[0]!.runAt).getTime()).toBe(now.getTime())
  }
  // the running and the done job are untouched
  const [running] = await byKey(`${kind}:running`)
  expect(running!.status).toBe('running')
  expect(new Date(running!.runAt).getTime()).toBe(later.getTime())
  expect((await byKey(`${kind}:done`))[0]!.status).toBe('done')
})

it('writes nothing for no jobs', async () => {
  const before = await database.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  await q.hasten(database.db, [], new Date())
  const after = await database.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  expect(Number(after.n)).toBe(Number(before.n))
})

it('writes nothing for an entry without a dedupe key whose known job is not queued', async () => {
  const kind = unique()
  const now = new Date()
  const later = new Date(now.getTime() + 30_000)
  await q.enqueue(database.db, kind, { n: 1 }, { runAt: later, dedupeKey: `${kind}:queued` })
  await q.enqueue(database.db, kind, { n: 2 }, { runAt: later, dedupeKey: `${kind}:running` })
  await database.db
    .updateTable('jobs')
    .set({ status: 'running', lockedUntil: later })
    .where('dedupeKey', '=', `${kind}:running`)
    .execute()
  await q.hasten(
    database.db,
    [
      { kind, payload: { n: 1 }, current: `${kind}:queued` },
      { kind, payload: { n: 2 }, current: `${kind}:running` },
      { kind, payload: { n: 3 }, current: `${kind}:never` },
    ],
    now,
  )
  const [queued] = await byKey(`${kind}:queued`)
  expect(new Date(queued!.runAt).getTime()).toBe(now.getTime())
  const [running] = await byKey(`${kind}:running`)
  expect(running!.status).toBe('running')
  expect(new Date(running!.runAt).getTime()).toBe(later.getTime())
  const all = await database.db.selectFrom('jobs').select('id').where('kind', '=', kind).execute()
  expect(all).toHaveLength(2)
})
