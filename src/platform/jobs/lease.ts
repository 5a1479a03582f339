// A claimed job's lease: the claim's end on the database's clock, renewed in the background while
// the handler runs, and fenced by the claim's attempt number so that a worker that lost its claim
// can neither renew nor record anything over the next claimant's.
import { type ExpressionBuilder, sql } from 'kysely'
import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { DB } from '../../db/types.ts'

export interface ClaimedJob {
  id: string
  kind: string
  attempts: number
}

export interface Lease {
  /** stops renewing; resolves once a renewal in flight has finished */
  stop(): Promise<void>
  /** stops renewing at once, without waiting for a renewal in flight (which then finds the run's
   * outcome recorded, and says nothing of it) */
  halt(): void
}

/** The end of a lease of `ms` taken now, on the database's clock. */
export function leaseEnd(ms: number) {
  return sql<Date>`now() + cast(${`${Math.round(ms)} milliseconds`} as interval)`
}

/** This claim of the job: the row as long as nobody claimed it again since. */
export function ours(job: ClaimedJob) {
  return (eb: ExpressionBuilder<DB, 'jobs'>) =>
    eb.and([eb('id', '=', job.id), eb('status', '=', 'running'), eb('attempts', '=', job.attempts)])
}

/** Renews the lease of `job` every `heartbeatMs` until stopped. */
export function keepLease(
  db: Db,
  log: Logger,
  job: ClaimedJob,
  timing: { leaseMs: number; heartbeatMs: number },
): Lease {
  let held = true
  let stopped = false
  let renewal: Promise<void> | undefined
  let renewedAt = Date.now()
  let expiredLogged = false
  const about = { jobId: job.id, kind: job.kind, attempt: job.attempts }
  const renew = async () => {
    try {
      const res = await db
        .updateTable('jobs')
        .set({ lockedUntil: leaseEnd(timing.leaseMs) })
        .where(ours(job))
        .executeTakeFirst()
      if (Number(res.numUpdatedRows) > 0) {
        renewedAt = Date.now()
        return
      }
      // Halted by the run, whose last transaction recorded its outcome meanwhile: not a lost lease.
      if (stopped) return
      held = false
      clearInterval(timer)
      log.error(about, 'job lease lost: the job was claimed again while this worker still ran it')
    } catch (err) {
      const expired = Date.now() - renewedAt >= timing.leaseMs
      const detail = { ...about, err: err instanceof Error ? err.message : String(err) }
      if (!expired) log.warn(detail, 'job lease renewal failed; retrying')
      else if (!expiredLogged) {
        expiredLogged = true
        log.error(
          detail,
          'job lease expired: renewals failed, another worker may claim the job while it still runs',
        )
      }
    }
  }
  const timer = setInterval(() => {
    if (renewal || !held || stopped) return
    renewal = renew().finally(() => {
      renewal = undefined
    })
  }, timing.heartbeatMs)
  timer.unref()
  return {
    async stop() {
      stopped = true
      clearInterval(timer)
      await renewal
    },
    halt() {
      stopped = true
      clearInterval(timer)
    },
  }
}
