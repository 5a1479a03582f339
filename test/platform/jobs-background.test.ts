// The job worker's loop runs as background work (src/db/priority-pool.ts), on both drivers: its
// claims and its jobs' statements give way to requests for PostgreSQL's pooled connections, and
// what a request runs itself (`runOnce`, a statement of its own) does not.
import { sql } from 'kysely'
import pino from 'pino'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Database } from '../../src/db/index.ts'
import { inBackground } from '../../src/db/priority-pool.ts'
import { systemClock } from '../../src/platform/clock.ts'
import { JobQueue } from '../../src/platform/jobs/queue.ts'
import { openTestDatabase } from '../helpers/app.ts'

declare module '../../src/platform/jobs/queue.ts' {
  interface JobPayloads {
    [kind: `background.test.${string}`]: { by: string }
  }
}

let database: Database
beforeAll(async () => {
  database = await openTestDatabase()
})
afterAll(async () => {
  await database?.close()
})

it('runs the worker loop’s jobs as background work, and jobs run by a caller as the caller’s', async () => {
  const q = new JobQueue(database.db, pino({ level: 'silent' }), systemClock)
  const kind = `background.test.${process.pid}` as const
  const seen: { by: string; background: boolean; lent: number | undefined }[] = []
  let done!: () => void
  const loopRan = new Promise<void>((resolve) => {
    done = resolve
  })
  q.register(kind, async ({ by }) => {
    // A transaction of the job's own: on PostgreSQL its connection is counted as lent to jobs.
    const lent = await database.db.transaction().execute(async (tx) => {
      await sql`select 1`.execute(tx)
      return database.pool()?.background
    })
    seen.push({ by, background: inBackground(), lent })
    if (by === 'loop') done()
  })

  await q.enqueue(database.db, kind, { by: 'caller' })
  expect(await q.runOnce()).toBe(1)
  q.start(3_600_000)
  try {
    await q.enqueue(database.db, kind, { by: 'loop' })
    await loopRan
  } finally {
    await q.stop()
  }
  const postgres = database.kind === 'postgres'
  expect(seen).toEqual([
    { by: 'caller', background: false, lent: postgres ? 0 : undefined },
    { by: 'loop', background: true, lent: postgres ? 1 : undefined },
  ])
  expect(inBackground()).toBe(false)
  if (postgres) expect(database.pool()).toMatchObject({ background: 0 })
})
