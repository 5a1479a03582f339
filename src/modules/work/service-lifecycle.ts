// A job's life after its talent is assigned: delivery (and a request for changes), completion
// (the rest of the escrow is released), cancellation (an unfunded job closes; a funded one's
// escrow goes back to the creator, or is split by `paymentPercentage`), each a step of the job's
// state machine (collections/states.ts).
import type { Tx } from '../../db/index.ts'
import { inTransaction } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import { type Action, checkTransition, phaseOf } from '../collections/module.ts'
import type { JobRow } from '../collections/types.ts'
import { roleOf, visibleJob, type WorkDeps } from './context.ts'
import { applicationRepo, audit, inviteRepo } from './repo.ts'
import type { CancelInput, DeliverInput } from './schemas.ts'
import type { InspectionService } from './service-inspection.ts'

/** The durable job that pays a cancelled or disputed job's escrow out (see service-disputes.ts). */
export const SPLIT_JOB = 'work.escrow_split'

export interface SplitJob {
  collectionId: string
  escrowId: string
  /** idempotency key of the escrow's split (one per job and cause) */
  key: string
  /** the talent's share: fixed cents (disputes), or a percentage of what remains (cancellation) */
  ownerCents?: string
  ownerPercent?: number
  disputeId?: string
}

export class LifecycleService {
  constructor(
    private readonly deps: WorkDeps,
    private readonly inspection: InspectionService,
  ) {}

  /** Loads the job locked and checks the caller may take `action` now; answers the next phase. */
  async #step(tx: Tx, userId: string, id: string, action: Action) {
    const job = await visibleJob(this.deps, tx, id, userId, true)
    return { job, to: checkTransition(action, phaseOf(job), roleOf(job, userId)) }
  }

  /** The talent delivers: recipientCompletedJob, with a note and their uploads. */
  async deliverIn(tx: Tx, userId: string, id: string, input: DeliverInput = {}) {
    const { job } = await this.#step(tx, userId, id, 'deliver')
    const attachments = [...new Set(input.attachments ?? [])]
    if (attachments.length)
      await this.deps.files.assertOwned(tx, userId, attachments, { path: '/attachments' })
    const deliveredAt = await this.deps.collections.jobs.setDelivery(tx, job.id, {
      note: (input.note ?? '').trim(),
      attachmentIds: attachments,
    })
    await this.inspection.schedule(tx, job, deliveredAt)
    await this.deps.events.emit(tx, {
      type: 'collection.delivered',
      actorId: userId,
      audience: [job.creatorId],
      collectionId: job.id,
      isPublic: !job.isPrivate,
      data: { collectionId: job.id },
    })
    await audit(tx, this.deps.clock.now(), userId, 'work.delivered', {
      collectionId: job.id,
      attachments: attachments.length,
    })
  }

  deliver(userId: string, id: string, input: DeliverInput) {
    return inTransaction(this.deps.db, (tx) => this.deliverIn(tx, userId, id, input))
  }

  /** The creator asks for changes: the job is ongoing again (the delivery stays on record). */
  async requestChangesIn(tx: Tx, userId: string, id: string) {
    const { job } = await this.#step(tx, userId, id, 'requestChanges')
    await this.deps.collections.jobs.reopenDelivery(tx, job.id)
    await audit(tx, this.deps.clock.now(), userId, 'work.changes_requested', { collectionId: job.id })
  }

  /**
   * The creator completes a delivered job: what remains in its escrow is released to the talent
   * (one release, or the last of several parts), then the job is completed. A job whose escrow is
   * not paid cannot complete (422).
   */
  async complete(userId: string, id: string) {
    const { deps } = this
    const job = await visibleJob(deps, deps.db, id, userId)
    checkTransition('complete', phaseOf(job), roleOf(job, userId))
    if (!job.escrowId || !['paid', 'released'].includes(job.escrowStatus ?? ''))
      throw errors.named(
        'ESCROW_NOT_FUNDED',
        'The job’s escrow is not paid: fund it (POST /v1/payment/) before completing',
      )
    const escrow = await deps.escrow.splitState(job.escrowId)
    // The rest of the escrow, once (a retried completion replays the same release).
    if (escrow.status === 'paid')
      await deps.escrow.release(userId, job.escrowId, { key: `complete:${job.id}` })
    await inTransaction(deps.db, async (tx) => {
      const locked = (await deps.collections.jobs.get(tx, id, true))!
      // Every payout may already be confirmed, which completes the job by itself.
      if (phaseOf(locked) === 'completed') return
      checkTransition('complete', phaseOf(locked), roleOf(locked, userId))
      await deps.collections.jobs.setStatus(tx, id, 'completed', { progress: 100 })
      await deps.events.emit(tx, {
        type: 'collection.completed',
        actorId: userId,
        audience: [locked.creatorId, ...(locked.receiverId ? [locked.receiverId] : [])],
        collectionId: id,
        isPublic: !locked.isPrivate,
        data: { collectionId: id },
      })
      await audit(tx, deps.clock.now(), userId, 'work.completed', {
        collectionId: id,
        escrowId: job.escrowId,
      })
    })
  }

  /**
   * The creator cancels with a reason. Pending invites and applications expire. An escrow awaiting
   * payment is cancelled (what it received goes back); a paid one is returned to the creator's
   * wallet, less `paymentPercentage` of it released to the talent. The money moves in a durable
   * job (SPLIT_JOB), after the job is cancelled, which freezes the escrow for anything else.
   */
  async cancel(userId: string, id: string, input: CancelInput) {
    const { deps } = this
    const reason = input.reason.trim()
    if (!reason) throw errors.field('/reason', 'must not be blank')
    const percent = input.paymentPercentage ?? 0
    await inTransaction(deps.db, async (tx) => {
      const { job } = await this.#step(tx, userId, id, 'cancel')
      this.#checkEscrowForCancel(job, percent)
      const now = deps.clock.now()
      await deps.collections.jobs.setStatus(tx, job.id, 'cancelled', { cancellationReason: reason })
      await inviteRepo.expirePending(tx, job.id, now)
      await applicationRepo.expirePending(tx, job.id, now)
      if (job.escrowId && (job.escrowStatus === 'waiting' || job.escrowStatus === 'paid')) {
        const payload: SplitJob = {
          collectionId: job.id,
          escrowId: job.escrowId,
          key: `cancel:${job.id}`,
          ownerPercent: percent,
        }
        await deps.jobs.enqueue(tx, SPLIT_JOB, payload, { dedupeKey: `${SPLIT_JOB}:${payload.key}` })
      }
      await deps.events.emit(tx, {
        type: 'collection.cancelled',
        actorId: userId,
        audience: [job.creatorId, ...(job.receiverId ? [job.receiverId] : [])].filter((u) => u !== userId),
        collectionId: job.id,
        data: { collectionId: job.id },
      })
      await audit(tx, now, userId, 'work.cancelled', {
        collectionId: job.id,
        reason,
        escrowId: job.escrowId,
        escrowStatus: job.escrowStatus,
        paymentPercentage: percent,
      })
    })
  }

  #checkEscrowForCancel(job: JobRow, percent: number) {
    if (job.escrowStatus === 'releasing' || job.escrowStatus === 'released')
      throw errors.named(
        'ESCROW_RELEASE_IN_PROGRESS',
        'The whole escrow was released: the job completes once the payouts are confirmed',
      )
    if (percent > 0 && (job.escrowStatus !== 'paid' || !job.receiverId))
      throw errors.named(
        'PAYMENT_PERCENTAGE_UNAVAILABLE',
        'paymentPercentage needs a paid escrow and an assigned talent',
        {
          errors: [{ path: '/paymentPercentage', message: 'the job has no paid escrow to share' }],
        },
      )
  }
}
