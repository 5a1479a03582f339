// Finished jobs are kept a week, then deleted. A finished job's row (`status = 'done'`) is what
// makes its dedupe key refuse a second enqueue of the same work; it is also what an operator reads
// when asking what ran. Every money path is guarded by the state it changes (a status set by
// compare-and-set, a ledger transfer's own key), not by a job's key, so a key freed after a week
// can only let through work that checks its state before it acts. Failed and parked jobs, and jobs
// still to run, are never deleted here.
//
// The deletion is a job of its own, scheduled once an hour (one per time slot, whichever process
// schedules it), deleting in batches of at most `batch` rows so that no statement holds many row
// locks or runs long; a batch takes the oldest ids first (ids begin with their second of creation,
// so the primary key finds them without a scan of the table).
import { sql } from 'kysely'
import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../clock.ts'
import { firstIdAt } from '../crypto/ids.ts'
import type { JobQueue } from './queue.ts'

export const PRUNE_JOB = 'jobs.prune'

declare module './queue.ts' {
  interface JobPayloads {
    'jobs.prune': { slot: number }
  }
}

/** how long a finished job is kept after it finished */
export const KEEP_DONE_MS = 7 * 24 * 3600_000
/** how often finished jobs are pruned */
export const PRUNE_EVERY_MS = 3600_000
/** rows deleted by one statement */
export const PRUNE_BATCH = 5000
/** batches one run deletes at most (the rest waits for the next run) */
const MAX_BATCHES = 200

/**
 * Deletes up to `batch` jobs made and finished before `before`; answers how many it deleted. Rows
 * another transaction holds are skipped (the next batch or run takes them).
 */
export async function pruneFinishedJobs(db: Db, before: Date, batch = PRUNE_BATCH): Promise<number> {
  const res = await sql`
    delete from jobs where id in (
      select id from jobs
      where id < ${firstIdAt(before)} and status = 'done' and updated_at < ${before}
      order by id
      limit ${batch}
      for update skip locked)`.execute(db)
  return Number(res.numAffectedRows ?? 0)
}

export interface PruneDeps {
  db: Db
  jobs: JobQueue
  clock: Clock
  log: Logger
}

/** Registers the scheduled pruning; `schedulePrune` queues the first run. */
export function registerPrune(d: PruneDeps, opts: { keepMs?: number; batch?: number } = {}) {
  const keepMs = opts.keepMs ?? KEEP_DONE_MS
  const batch = opts.batch ?? PRUNE_BATCH
  d.jobs.register(
    PRUNE_JOB,
    async () => {
      const before = new Date(d.clock.now().getTime() - keepMs)
      let deleted = 0
      for (let i = 0; i < MAX_BATCHES; i++) {
        const n = await pruneFinishedJobs(d.db, before, batch)
        deleted += n
        if (n < batch) break
      }
      if (deleted > 0) d.log.info({ event: 'jobs.pruned', deleted, before }, 'finished jobs deleted')
      // the slot after now (a process that was down for days does not run the ones it missed)
      await schedulePrune(d)
    },
    { maxAttempts: 1000, deleteOnSuccess: true },
  )
}

/** Queues the run of the next time slot (once, whichever process asks). */
export async function schedulePrune(d: Pick<PruneDeps, 'db' | 'jobs' | 'clock'>) {
  const slot = Math.floor((d.clock.now().getTime() + PRUNE_EVERY_MS) / PRUNE_EVERY_MS)
  await d.jobs.enqueue(
    d.db,
    PRUNE_JOB,
    { slot },
    { runAt: new Date(slot * PRUNE_EVERY_MS), dedupeKey: `${PRUNE_JOB}:${slot}` },
  )
}
