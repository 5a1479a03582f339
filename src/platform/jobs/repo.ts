// The `jobs` table's statements for the queue (queue.ts): a job's insert, the claim of ready jobs,
// a claim handed back, and the outcome of a run. Every write to a claimed job is fenced by its
// claim (`ours`, lease.ts): a worker that lost its lease changes nothing.
import { sql } from 'kysely'
import type { Db, Executor } from '../../db/index.ts'
import { type ClaimedJob, leaseEnd, ours } from './lease.ts'

export interface JobRow {
  id: string
  kind: string
  payload: any
  attempts: number
  maxAttempts: number
}

export const jobsRepo = {
  /** The insert of a job (not executed); a job whose dedupe key is taken is not written. */
  insert(
    ex: Executor,
    job: {
      id: string
      kind: string
      payload: unknown
      runAt: Date
      maxAttempts: number
      dedupeKey: string | null
    },
  ) {
    return ex
      .insertInto('jobs')
      .values({ ...job, payload: JSON.stringify(job.payload) })
      .onConflict((oc) => oc.column('dedupeKey').where('dedupeKey', 'is not', null).doNothing())
  },

  /** Claims up to `limit` ready jobs of `kinds` (queued and due, or running with a lapsed lease). */
  claim(db: Db, kinds: string[], limit: number, leaseMs: number, now: Date): Promise<JobRow[]> {
    return db
      .updateTable('jobs')
      .set({
        status: 'running',
        attempts: sql`attempts + 1`,
        lockedUntil: leaseEnd(leaseMs),
        updatedAt: now,
      })
      .where(
        'id',
        'in',
        db
          .selectFrom('jobs')
          .select('id')
          .where('kind', 'in', kinds)
          .where((eb) =>
            eb.or([
              eb.and([eb('status', '=', 'queued'), eb('runAt', '<=', now)]),
              eb.and([eb('status', '=', 'running'), eb('lockedUntil', '<', sql<Date>`now()`)]),
            ]),
          )
          .orderBy('runAt')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returning(['id', 'kind', 'payload', 'attempts', 'maxAttempts'])
      .execute()
  },

  /** Gives a claim back unrun: queued again, the attempt not counted. */
  async handBack(db: Db, job: ClaimedJob): Promise<void> {
    await db
      .updateTable('jobs')
      .set({ status: 'queued', attempts: sql`attempts - 1`, lockedUntil: null })
      .where(ours(job))
      .execute()
  },

  /** The statement that records a run that succeeded (the row deleted, or marked done), not executed. */
  succeededStatement(ex: Executor, job: ClaimedJob, opts: { delete: boolean; now: Date }) {
    return opts.delete
      ? ex.deleteFrom('jobs').where(ours(job))
      : ex
          .updateTable('jobs')
          .set({ status: 'done', lockedUntil: null, updatedAt: opts.now })
          .where(ours(job))
  },

  /** Records a run that succeeded; false when the claim was lost. */
  async succeeded(db: Db, job: ClaimedJob, opts: { delete: boolean; now: Date }): Promise<boolean> {
    const res = await jobsRepo.succeededStatement(db, job, opts).executeTakeFirst()
    return Number('numDeletedRows' in res ? res.numDeletedRows : res.numUpdatedRows) > 0
  },

  /** Records a run that failed: failed for good, or queued again at `retryAt`; false when the claim
   * was lost. */
  async failed(
    db: Db,
    job: ClaimedJob,
    o: { final: boolean; message: string; retryAt: Date; now: Date },
  ): Promise<boolean> {
    const res = await db
      .updateTable('jobs')
      .set({
        status: o.final ? 'failed' : 'queued',
        lastError: o.message.slice(0, 2000),
        runAt: o.retryAt,
        lockedUntil: null,
        updatedAt: o.now,
      })
      .where(ours(job))
      .executeTakeFirst()
    return Number(res.numUpdatedRows) > 0
  },

  /** Ends the lease of every running job now; how many there were. */
  async releaseRunning(db: Db): Promise<number> {
    const res = await db
      .updateTable('jobs')
      .set({ lockedUntil: sql<Date>`now() - interval '1 second'` })
      .where('status', '=', 'running')
      .executeTakeFirst()
    return Number(res.numUpdatedRows)
  },
}
