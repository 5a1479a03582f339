// A run that records its success in its own last transaction (`ctx.finishIn`, both drivers): the
// job is done exactly when that transaction commits, with no statement of the queue's after the
// handler; a rolled-back transaction leaves the run to be recorded as failed and retried.
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database, Tx } from '../../src/db/index.ts'
import { systemClock } from '../../src/platform/clock.ts'
import { type JobContext, JobQueue } from '../../src/platform/jobs/queue.ts'
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
    [kind: `finish.test.${string}`]: { fail?: boolean }
  }
}

let kindSeq = 0
const uniqueKind = () => `finish.test.${process.pid}.${kindSeq++}` as const

/** A queue whose warnings and errors are kept. */
function queue() {
  const logged: string[] = []
  const log = pino(
    { level: 'warn' },
    { write: (line: string) => logged.push(JSON.parse(line).msg as string) },
  )
  return { q: new JobQueue(database.db, log, systemClock), logged }
}

/** A queue, a kind for the test's runs, and the kind they write as their effect (never run here). */
function setup() {
  const { q, logged } = queue()
  const kind = uniqueKind()
  const effectKind = uniqueKind()
  q.register(effectKind, async () => {})
  return { q, logged, kind, effectKind }
}

const jobOf = (id: string) =>
  database.db
    .selectFrom('jobs')
    .select(['status', 'attempts', 'lastError'])
    .where('id', '=', id)
    .executeTakeFirst()

/**
 * What each handler's last transaction does: records the run's success, and writes its effect (a
 * job of `effectKind` due in an hour, its dedupe key naming the run's job).
 */
async function finishWithEffect(q: JobQueue, effectKind: `finish.test.${string}`, tx: Tx, ctx: JobContext) {
  await ctx.finishIn(tx)
  await q.enqueue(
    tx,
    effectKind,
    {},
    { dedupeKey: `effect:${ctx.job.id}`, runAt: new Date(Date.now() + 3_600_000) },
  )
}

/** The job the handler writes as its effect (its dedupe key names the run's job). */
const effectOf = (jobId: string) =>
  database.db.selectFrom('jobs').select('id').where('dedupeKey', '=', `effect:${jobId}`).executeTakeFirst()

describe('a run that records its success in its last transaction', () => {
  it('is done when that transaction commits, and the queue sends nothing after the handler', async () => {
    const { q, logged, kind, effectKind } = setup()
    let before = 0
    q.register(kind, async (_payload, ctx) => {
      await database.db.transaction().execute((tx) => finishWithEffect(q, effectKind, tx, ctx))
      before = database.queryCount()
    })
    const id = await q.enqueue(database.db, kind, {})
    // Once the handler returned: how many statements the queue sent for the run's outcome.
    await q.runOnce(1)
    expect(database.queryCount() - before).toBe(0)
    expect(await jobOf(id)).toMatchObject({ status: 'done', attempts: 1, lastError: null })
    expect(await effectOf(id)).toBeDefined()
    expect(logged).toEqual([])
  })

  it('is not done when that transaction rolls back: the failure is recorded and the job runs again', async () => {
    const { q, logged, kind, effectKind } = setup()
    q.register(
      kind,
      async (payload, ctx) => {
        await database.db.transaction().execute(async (tx) => {
          await finishWithEffect(q, effectKind, tx, ctx)
          if (payload.fail && ctx.job.attempts === 1) throw new Error('the last step failed')
        })
      },
      { baseDelayMs: 0 },
    )
    const id = await q.enqueue(database.db, kind, { fail: true })
    await q.runOnce(1)
    expect(await jobOf(id)).toMatchObject({
      status: 'queued',
      attempts: 1,
      lastError: 'the last step failed',
    })
    expect(await effectOf(id)).toBeUndefined()
    expect(logged).toEqual(['job failed'])

    await q.runOnce(1)
    expect(await jobOf(id)).toMatchObject({ status: 'done', attempts: 2 })
    expect(await effectOf(id)).toBeDefined()
  })

  it('deletes the row of a kind deleted on success, with that transaction', async () => {
    const { q, logged, kind, effectKind } = setup()
    q.register(
      kind,
      async (_payload, ctx) => {
        await database.db.transaction().execute(async (tx) => {
          await finishWithEffect(q, effectKind, tx, ctx)
        })
      },
      { deleteOnSuccess: true },
    )
    const id = await q.enqueue(database.db, kind, {})
    await q.runOnce(1)
    expect(await jobOf(id)).toBeUndefined()
    expect(await effectOf(id)).toBeDefined()
    expect(logged).toEqual([])
  })
})
