// What the escrow feature records on a collection, always inside the escrow's own transaction:
// the escrow's state (linking, payment, release, cancellation, refund), the payout legs' statuses,
// and the state the escrow reads back. The job's status follows the escrow through the job's state
// machine (states.ts).
import type { Db, Executor, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import type { EventService } from '../events/types.ts'
import { type CollectionRow, collectionRepo } from './repo.ts'
import { assertFundable, escrowFrozen, statusAfterPayment, statusAfterRelease } from './states.ts'

/** The escrow state a collection moves through (see markEscrow). */
export type EscrowState = 'waiting' | 'paid' | 'released' | 'cancelled' | 'refunded'
export type PayoutKind = 'payout' | 'fee' | 'platformFee'

export interface EscrowEvent {
  state: EscrowState
  escrowId: string
  receiverId?: string | null
  isFundingRequest?: boolean
}

export class EscrowLink {
  constructor(private readonly deps: { db: Db; clock: Clock; events: EventService }) {}

  /**
   * Records the escrow's state on its collection. `waiting` links an escrow (and its receiver) to
   * a live collection that is open (409 once it is completed, resolved, cancelled or disputed);
   * `paid` freezes the collection's details and counts it on its parent, and starts the work when
   * a talent is assigned (status `ongoing`); `released` completes an ongoing job; `cancelled`
   * unlinks an unpaid escrow; `refunded` records a paid escrow returned to the payer (the job was
   * cancelled): the link stays, shown as `cancelled`.
   */
  async markEscrow(tx: Tx, collectionId: string, event: EscrowEvent): Promise<void> {
    const row = await collectionRepo.getForChange(tx, collectionId, true)
    if (!row || row.isDeleted) throw errors.notFound('collection')
    if (row.escrowId && row.escrowId !== event.escrowId && row.escrowStatus !== 'cancelled')
      throw errors.named('COLLECTION_HAS_ESCROW', 'This collection already has another escrow')
    const now = this.deps.clock.now()
    const wasPaid = row.escrowPaid
    if (event.state === 'cancelled' && wasPaid)
      throw errors.named('ESCROW_ALREADY_PAID', 'A paid escrow cannot be cancelled')
    if (event.state === 'waiting' && row.escrowId !== event.escrowId) assertFundable(row)
    const receiverId = event.receiverId !== undefined ? event.receiverId : row.receiverId
    const paid =
      event.state === 'paid' || event.state === 'released' || (event.state === 'refunded' && wasPaid)
    let status = row.status
    if (event.state === 'paid') status = statusAfterPayment({ ...row, assigned: !!receiverId })
    if (event.state === 'released') status = statusAfterRelease(row)
    await collectionRepo.setEscrowState(
      tx,
      collectionId,
      {
        escrowId: event.state === 'cancelled' ? null : event.escrowId,
        escrowStatus:
          event.state === 'cancelled' ? null : event.state === 'refunded' ? 'cancelled' : event.state,
        escrowPaid: paid,
        status,
        ...(status === 'completed' && row.status !== 'completed' ? { completedAt: now } : {}),
        ...(event.receiverId !== undefined ? { receiverId: event.receiverId } : {}),
        ...(event.isFundingRequest !== undefined ? { isFundingRequest: event.isFundingRequest } : {}),
      },
      now,
    )
    if (row.parentId && paid !== wasPaid)
      await collectionRepo.bumpChildCounts(tx, row.parentId, 0, paid ? 1 : -1, now)
    await this.#emit(tx, row, event, { receiverId, wasPaid, status })
  }

  /** The domain events of an escrow step: funded, released, and the job completed by a release. */
  async #emit(
    tx: Tx,
    row: CollectionRow,
    event: EscrowEvent,
    after: { receiverId: string | null; wasPaid: boolean; status: string },
  ) {
    const { events } = this.deps
    const parties = [row.creatorId, ...(after.receiverId ? [after.receiverId] : [])]
    const data = { escrowId: event.escrowId, collectionId: row.id, usdAmount: row.paymentFee }
    if (event.state === 'paid' && !after.wasPaid)
      await events.emit(tx, {
        type: 'escrow.funded',
        actorId: row.creatorId,
        audience: parties,
        collectionId: row.id,
        data,
        key: `escrow.funded:${event.escrowId}`,
      })
    if (event.state === 'released' && row.escrowStatus !== 'released')
      await events.emit(tx, {
        type: 'escrow.released',
        actorId: row.creatorId,
        audience: parties,
        collectionId: row.id,
        isPublic: !row.isPrivate,
        data,
        key: `escrow.released:${event.escrowId}`,
      })
    if (after.status === 'completed' && row.status !== 'completed')
      await events.emit(tx, {
        type: 'collection.completed',
        actorId: row.creatorId,
        audience: parties,
        collectionId: row.id,
        isPublic: !row.isPrivate,
        data: { collectionId: row.id },
      })
  }

  /**
   * Records a payout step of a released escrow: `which` names the payout (receiver's, fee or
   * platform fee), `status` its new state (e.g. `processing`, `paid`, `failed`); a `failed` status
   * adds one to the matching failed*Count; `transactionId` is appended to payoutTransactions once.
   */
  async recordPayout(
    tx: Tx,
    collectionId: string,
    which: PayoutKind,
    status: string,
    transactionId?: string,
  ): Promise<void> {
    await collectionRepo.setPayout(
      tx,
      collectionId,
      which,
      status,
      status === 'failed',
      transactionId,
      this.deps.clock.now(),
    )
  }

  /** Several payout steps of one escrow's legs at once, in order (see recordPayout). */
  async recordPayouts(
    tx: Tx,
    collectionId: string,
    steps: { which: PayoutKind; status: string; transactionId?: string | undefined }[],
  ): Promise<void> {
    await collectionRepo.setPayouts(
      tx,
      collectionId,
      steps.map((s) => ({ ...s, failed: s.status === 'failed' })),
      this.deps.clock.now(),
    )
  }

  /** The escrow-relevant state of a collection (undefined when missing or deleted). */
  async escrowState(ex: Executor, collectionId: string) {
    const row = await collectionRepo.getForChange(ex, collectionId)
    if (!row || row.isDeleted) return undefined
    return {
      id: row.id,
      creatorId: row.creatorId,
      receiverId: row.receiverId,
      escrowId: row.escrowId,
      escrowStatus: row.escrowStatus as Exclude<EscrowState, 'refunded'> | null,
      escrowPaid: row.escrowPaid,
      paymentFee: row.paymentFee,
      parentId: row.parentId,
      isPrivate: row.isPrivate,
      name: row.name,
      description: row.description,
      type: row.type,
      status: row.status,
      isFundingRequest: row.isFundingRequest,
      recipientCompletedJob: row.recipientCompletedJob,
    }
  }

  /** 422 while the job is in dispute (or its split is being paid): only the split moves its escrow. */
  async assertEscrowMovable(ex: Executor, collectionId: string): Promise<void> {
    const row = await collectionRepo.getForChange(ex, collectionId)
    if (row && escrowFrozen(row))
      throw errors.named(
        'JOB_IN_DISPUTE',
        'This job is in dispute: its escrow is frozen until the dispute is settled or decided',
      )
  }
}
