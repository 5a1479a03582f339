// Finished jobs deleted a week after they finished (both drivers): only `done` rows made and
// finished before the cutoff go, in batches; failed, parked and pending jobs stay whatever their
// age; a deleted job's dedupe key can be used again, a kept one still refuses; the pruning job
// schedules its next run once per time slot.
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/index.ts'
import type { Clock } from '../../src/platform/clock.ts'
import { firstIdAt, newId } from '../../src/platform/crypto/ids.ts'
import {
  KEEP_DONE_MS,
  PRUNE_EVERY_MS,
  PRUNE_JOB,
  pruneFinishedJobs,
  registerPrune,
  schedulePrune,
} from '../../src/platform/jobs/prune.ts'
import { JobQueue } from '../../src/platform/jobs/queue.ts'
import { openTestDatabase } from '../helpers/app.ts'

declare module '../../src/platform/jobs/queue.ts' {
  interface JobPayloads {
    [kind: `prune.test.${string}`]: Record<string, never>
  }
}

let database: Database
beforeAll(async () => {
  database = await openTestDatabase()
})
afterAll(async () => {
  await database?.close()
})

const DAY = 24 * 3600_000
let kindSeq = 0
const uniqueKind = () => `prune.test.${process.pid}.${kindSeq++}` as const

/** A job row as a run left it: made at `made`, last written at `finished`. */
async function row(
  kind: string,
  status: string,
  made: Date,
  finished: Date,
  dedupeKey: string | null = null,
) {
  const id = newId(made.getTime())
  await database.db
    .insertInto('jobs')
    .values({ id, kind, status, payload: '{}', runAt: made, createdAt: made, updatedAt: finished, dedupeKey })
    .execute()
  return id
}

const left = async (kind: string) =>
  (await database.db.selectFrom('jobs').select('id').where('kind', '=', kind).orderBy('id').execute()).map(
    (r) => r.id,
  )

describe('pruning finished jobs', () => {
  it('bounds ids by their second of creation', () => {
    const at = new Date('2026-11-30T04:00:00.000Z')
    expect(firstIdAt(at)).toMatch(/^[0-9a-f]{24}$/)
    for (let i = 0; i < 50; i++) {
      expect(newId(at.getTime()) >= firstIdAt(at)).toBe(true)
      expect(newId(at.getTime() + 999) >= firstIdAt(at)).toBe(true)
      expect(newId(at.getTime() - 1) < firstIdAt(at)).toBe(true)
    }
  })

  it('deletes only the done jobs made and finished before the cutoff, whatever else is old', async () => {
    const kind = uniqueKind()
    const now = new Date()
    const before = new Date(now.getTime() - KEEP_DONE_MS)
    const old = new Date(before.getTime() - DAY)
    const gone = [
      await row(kind, 'done', old, old),
      await row(kind, 'done', old, new Date(before.getTime() - 1000)),
    ]
    const kept = [
      // finished after the cutoff (a job scheduled long ahead that ran lately)
      await row(kind, 'done', old, new Date(before.getTime() + 1000)),
      await row(kind, 'done', now, now),
      await row(kind, 'failed', old, old),
      await row(kind, 'parked', old, old),
      await row(kind, 'queued', old, old),
      await row(kind, 'running', old, old),
    ]
    expect(await pruneFinishedJobs(database.db, before)).toBeGreaterThanOrEqual(gone.length)
    expect(await left(kind)).toEqual([...kept].sort())
  })

  it('deletes at most a batch per statement, the oldest first', async () => {
    const kind = uniqueKind()
    const before = new Date(Date.now() - KEEP_DONE_MS)
    const ids: string[] = []
    for (let i = 5; i >= 1; i--) {
      const at = new Date(before.getTime() - i * DAY)
      ids.push(await row(kind, 'done', at, at))
    }
    // rows of earlier tests are gone already: only this kind's are old and done
    expect(await pruneFinishedJobs(database.db, before, 2)).toBe(2)
    expect(await left(kind)).toEqual(ids.slice(2))
    expect(await pruneFinishedJobs(database.db, before, 2)).toBe(2)
    expect(await pruneFinishedJobs(database.db, before, 2)).toBe(1)
    expect(await pruneFinishedJobs(database.db, before, 2)).toBe(0)
    expect(await left(kind)).toEqual([])
  })

  it("frees a deleted job's dedupe key; a kept one still refuses the same work", async () => {
    const queue = new JobQueue(database.db, pino({ level: 'silent' }), { now: () => new Date() })
    const kind = uniqueKind()
    const before = new Date(Date.now() - KEEP_DONE_MS)
    const old = new Date(before.getTime() - DAY)
    await row(kind, 'done', old, old, `${kind}:old`)
    const recent = await row(kind, 'done', new Date(), new Date(), `${kind}:recent`)
    await pruneFinishedJobs(database.db, before)
    const again = await queue.enqueue(database.db, kind, {}, { dedupeKey: `${kind}:old` })
    await queue.enqueue(database.db, kind, {}, { dedupeKey: `${kind}:recent` })
    expect(await left(kind)).toEqual([recent, again].sort())
  })

  it('runs as a job: deletes every batch, then schedules the next slot once', async () => {
    let now = new Date()
    const clock: Clock = { now: () => now }
    const log = pino({ level: 'silent' })
    const jobs = new JobQueue(database.db, log, clock)
    registerPrune({ db: database.db, jobs, clock, log }, { batch: 2 })
    const kind = uniqueKind()
    const old = new Date(now.getTime() - KEEP_DONE_MS - DAY)
    for (let i = 0; i < 5; i++) await row(kind, 'done', old, old)
    const kept = await row(kind, 'done', now, now)

    await schedulePrune({ db: database.db, jobs, clock })
    await schedulePrune({ db: database.db, jobs, clock })
    const scheduled = () =>
      database.db
        .selectFrom('jobs')
        .select(['runAt', 'dedupeKey'])
        .where('kind', '=', PRUNE_JOB)
        .where('status', '=', 'queued')
        .orderBy('runAt')
        .execute()
    const first = await scheduled()
    expect(first).toHaveLength(1)
    const slot = Math.floor(now.getTime() / PRUNE_EVERY_MS) + 1
    expect(first[0]!.runAt.getTime()).toBe(slot * PRUNE_EVERY_MS)
    expect(first[0]!.dedupeKey).toBe(`${PRUNE_JOB}:${slot}`)

    // not due yet: nothing runs
    await jobs.runUntilIdle()
    expect(await left(kind)).toHaveLength(6)

    // three slots later (the process was down meanwhile): one run, then the slot after now
    now = new Date(slot * PRUNE_EVERY_MS + 2 * PRUNE_EVERY_MS + 1000)
    await jobs.runUntilIdle()
    expect(await left(kind)).toEqual([kept])
    const next = await scheduled()
    expect(next.map((j) => j.dedupeKey)).toEqual([`${PRUNE_JOB}:${slot + 3}`])
    // the run deleted its own row (it keeps no dedupe key of a slot that is past)
    expect(
      await database.db
        .selectFrom('jobs')
        .select('id')
        .where('kind', '=', PRUNE_JOB)
        .where('status', '=', 'done')
        .execute(),
    ).toEqual([])
  })
})
