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
  /** when it was due (its retry's time after a failed run) */
  runAt: Date
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

  /**
   * One statement, not executed: for each of `jobs`, the queued job under its `current` key made
   * due by `runAt` (an earlier due time stays), or, where none is queued under that key (running,
   * done, parked, or never written) and the entry has a `dedupeKey`, the job inserted under it (not
   * written when that key is taken).
   */
  hastenOrInsert(
    jobs: readonly {
      id: string
      kind: string
      payload: unknown
      maxAttempts: number
      dedupeKey: string | undefined
      current: string
    }[],
    runAt: Date,
  ) {
    const hasten = sql`update jobs set run_at = least(run_at, ${runAt}::timestamptz), updated_at = ${runAt}::timestamptz
      where status = 'queued' and dedupe_key in (${sql.join(jobs.map((j) => j.current))})`
    const rows = jobs.flatMap((j) =>
      j.dedupeKey === undefined
        ? []
        : [
            sql`(${j.id}, ${j.kind}, ${JSON.stringify(j.payload)}, ${j.maxAttempts}::integer, ${j.dedupeKey}, ${j.current})`,
          ],
    )
    if (rows.length === 0) return hasten
    return sql`with hastened as (${hasten} returning dedupe_key)
      insert into jobs (id, kind, payload, run_at, max_attempts, dedupe_key)
      select v.id, v.kind, v.payload::jsonb, ${runAt}::timestamptz, v.max_attempts, v.dedupe_key
      from (values ${sql.join(rows)}) as v (id, kind, payload, max_attempts, dedupe_key, current)
      where v.current not in (select dedupe_key from hastened)
      on conflict (dedupe_key) where dedupe_key is not null do nothing`
  },

  /**
   * Claims up to `limit` ready jobs of `kinds`, the earliest due first: queued and due, and with
   * `lapsed` also running with a lapsed lease (a dead worker's). The two are found by queries of
   * their own: the due ones by an index scan, which marks the index entries of row versions no
   * transaction can see any more (every claim and outcome leaves one behind) and skips them from
   * then on. The lapsed ones are a bitmap scan over the versions of every job run since the last
   * vacuum (each left a `running` version whose lease now looks lapsed), so the queue asks for them
   * only now and then, not at every claim: one query with an OR of the two was such a bitmap scan
   * at every claim, and went from about 0.1 to 3 ms within minutes of a busy queue.
   */
  claim(
    db: Db,
    kinds: string[],
    limit: number,
    leaseMs: number,
    now: Date,
    opts: { lapsed: boolean },
  ): Promise<JobRow[]> {
    const ofKinds = () =>
      db
        .selectFrom('jobs')
        .select(['id', 'runAt'])
        .where('kind', 'in', kinds)
        .limit(limit)
        .forUpdate()
        .skipLocked()
    const due = () => ofKinds().where('status', '=', 'queued').where('runAt', '<=', now).orderBy('runAt')
    const claim = {
      status: 'running',
      attempts: sql<number>`attempts + 1`,
      lockedUntil: leaseEnd(leaseMs),
      updatedAt: now,
    } as const
    const columns = ['id', 'kind', 'payload', 'attempts', 'maxAttempts', 'runAt'] as const
    if (!opts.lapsed)
      return db
        .updateTable('jobs')
        .set(claim)
        .where('id', 'in', due().clearSelect().select('id'))
        .returning(columns)
        .execute()
    return db
      .with('due', due)
      .with('lapsed', () =>
        ofKinds()
          .where('status', '=', 'running')
          .where('lockedUntil', '<', sql<Date>`now()`)
          .orderBy('runAt'),
      )
      .updateTable('jobs')
      .set(claim)
      .where('id', 'in', (eb) =>
        eb
          .selectFrom((qb) =>
            qb
              .selectFrom('due')
              .select(['due.id', 'due.runAt'])
              .unionAll(qb.selectFrom('lapsed').select(['lapsed.id', 'lapsed.runAt']))
              .as('ready'),
          )
          .select('ready.id')
          .orderBy('ready.runAt')
          .limit(limit),
      )
      .returning(columns)
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
