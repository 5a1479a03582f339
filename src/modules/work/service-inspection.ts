// The inspection period: a delivered job completes by itself once its period has passed (the rest
// of its escrow released to the talent) unless the creator completed it, asked for changes or a
// party raised a dispute first. Delivering schedules, in the delivery's transaction, the release
// and two reminders (3 days and 1 day before) as durable jobs keyed by the job and the delivery's
// time: each runs once even after a crash, and a job answered or delivered again meanwhile makes
// them do nothing (a new delivery schedules its own).
import type { Tx } from '../../db/index.ts'
import { inTransaction } from '../../db/index.ts'
import { autoCompleteAt, inspectionDays, phaseOf } from '../collections/module.ts'
import type { JobRow } from '../collections/types.ts'
import type { WorkDeps } from './context.ts'
import { audit } from './repo.ts'

export const INSPECTION_RELEASE = 'work.inspection_release'
export const INSPECTION_REMINDER = 'work.inspection_reminder'

/** The delivery a scheduled step is about: the job and its delivery's time (Unix ms). */
export interface InspectionJob {
  collectionId: string
  deliveredAtMs: number
}
export interface InspectionReminder extends InspectionJob {
  daysLeft: number
}

/** Days before the end of the period when both parties are reminded. */
export const REMINDER_DAYS = [3, 1] as const
const DAY_MS = 86_400_000

export class InspectionService {
  constructor(private readonly deps: WorkDeps) {}

  /** Schedules the release and the reminders of the delivery just recorded on `job` (in `tx`). */
  async schedule(tx: Tx, job: JobRow, deliveredAt: Date) {
    const { jobs } = this.deps
    const due = autoCompleteAt(deliveredAt, inspectionDays(job))
    const at: InspectionJob = { collectionId: job.id, deliveredAtMs: deliveredAt.getTime() }
    const key = `${job.id}:${at.deliveredAtMs}`
    await jobs.enqueue(tx, INSPECTION_RELEASE, at, { runAt: due, dedupeKey: `${INSPECTION_RELEASE}:${key}` })
    for (const daysLeft of REMINDER_DAYS) {
      const runAt = new Date(due.getTime() - daysLeft * DAY_MS)
      // A period too short for this reminder skips it (the delivery itself was news).
      if (runAt <= deliveredAt) continue
      await jobs.enqueue(
        tx,
        INSPECTION_REMINDER,
        { ...at, daysLeft },
        { runAt, dedupeKey: `${INSPECTION_REMINDER}:${key}:${daysLeft}` },
      )
    }
  }

  /** The delivery is still waiting for the creator: delivered, and not delivered again since. */
  #waiting(job: JobRow | undefined, p: InspectionJob): job is JobRow {
    return !!job && phaseOf(job) === 'delivered' && job.deliveredAt?.getTime() === p.deliveredAtMs
  }

  /** Tells both parties the job completes by itself in `daysLeft` days. */
  async remind(p: InspectionReminder) {
    const { deps } = this
    await inTransaction(deps.db, async (tx) => {
      const job = await deps.collections.jobs.get(tx, p.collectionId)
      if (!this.#waiting(job, p)) return
      await deps.events.emit(tx, {
        type: 'collection.inspection_ending',
        actorId: null,
        audience: [job.creatorId, ...(job.receiverId ? [job.receiverId] : [])],
        collectionId: job.id,
        data: {
          collectionId: job.id,
          daysLeft: p.daysLeft,
          autoCompleteAt: autoCompleteAt(job.deliveredAt!, inspectionDays(job)).toISOString(),
        },
        key: `inspection-reminder:${job.id}:${p.deliveredAtMs}:${p.daysLeft}`,
      })
    })
  }

  /**
   * The period is over: what remains in escrow is released to the talent (under the key the
   * creator's own completion uses, so the two never release twice), then the job is completed.
   * A failure (the chain unreachable) throws, and the job runs again later.
   */
  async release(p: InspectionJob) {
    const { deps } = this
    const job = await deps.collections.jobs.get(deps.db, p.collectionId)
    if (!this.#waiting(job, p)) return
    if (!job.escrowId || !['paid', 'released'].includes(job.escrowStatus ?? '')) return
    const escrow = await deps.escrow.splitState(job.escrowId)
    if (escrow.status === 'paid')
      await deps.escrow.release(job.creatorId, job.escrowId, { key: `complete:${job.id}` })
    await inTransaction(deps.db, async (tx) => {
      const locked = await deps.collections.jobs.get(tx, job.id, true)
      // Every payout may already be confirmed, which completed the job by itself.
      if (!this.#waiting(locked, p)) return
      await deps.collections.jobs.setStatus(tx, job.id, 'completed', { progress: 100 })
      await deps.events.emit(tx, {
        type: 'collection.completed',
        actorId: null,
        audience: [locked.creatorId, ...(locked.receiverId ? [locked.receiverId] : [])],
        collectionId: job.id,
        isPublic: !locked.isPrivate,
        data: { collectionId: job.id },
      })
      await audit(tx, deps.clock.now(), null, 'work.auto_completed', {
        collectionId: job.id,
        escrowId: job.escrowId,
        inspectionDays: inspectionDays(locked),
      })
    })
  }
}
