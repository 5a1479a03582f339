// PATCH /v1/collection/{id} and the bulk update (/v1/collection/many/update): the creator's edits
// of a collection's details (#29), and the work steps clients send as a `status` or a `progress`:
// the talent delivers (`completed`), the creator completes (`completed`), cancels (`cancelled`)
// or asks for changes (`ongoing`); the talent sets the progress and status of the job's
// deliverables (child collections without an escrow), and the job's progress follows them.
import type { Tx } from '../../db/index.ts'
import { inTransaction } from '../../db/index.ts'
import { AppError, errors, type FieldError } from '../../http/errors.ts'
import {
  changedDetail,
  checkTransition,
  DELIVERABLE_STATUSES,
  type DeliverableStatus,
  phaseOf,
} from '../collections/module.ts'
import type { JobRow, UpdateCollectionBodyT, UpdateManyItem } from '../collections/types.ts'
import { isDeliverable, roleOf, visibleJob, type WorkDeps } from './context.ts'
import { audit } from './repo.ts'
import type { CreateManyInput } from './schemas.ts'
import type { LifecycleService } from './service-lifecycle.ts'

type WorkChange = { status?: string; progress?: number }

/** The cancellationReason of a job cancelled by a status change that named no reason. */
export const NO_REASON_GIVEN = 'No reason given'

/** Why a job cannot be moved to a status directly. */
const NOT_DIRECT: Record<string, string> = {
  pending: 'A job is pending until a talent is assigned; it cannot be moved back to pending',
  waiting: 'A job is waiting once a talent is assigned (an invite or an application accepted)',
  deleted: 'Delete a collection with DELETE /v1/collection/{id}',
}

export class UpdateService {
  constructor(
    private readonly deps: WorkDeps,
    private readonly lifecycle: LifecycleService,
  ) {}

  /** PATCH /v1/collection/{id}: details, or one work step; answers the older update shape. */
  async patch(userId: string, id: string, body: UpdateCollectionBodyT) {
    const { collections, db } = this.deps
    const { status, progress, cancellationReason, paymentWebHook, ...details } = body
    if (status === undefined && progress === undefined) {
      if (cancellationReason !== undefined)
        throw errors.field('/cancellationReason', 'cancellationReason goes with status `cancelled`')
      return collections.update(id, userId, details, paymentWebHook)
    }
    if (paymentWebHook !== undefined)
      throw errors.field('/paymentWebHook', 'set paymentWebHook in an update without a status or progress')
    const job = await visibleJob(this.deps, db, id, userId)
    this.#sameDetails(job, details, '')
    if (!isDeliverable(job) && status === 'cancelled') {
      checkTransition('cancel', phaseOf(job), roleOf(job, userId))
      // The public SDK's UpdateCollectionDto has no cancellationReason: its cancellation carries none.
      await this.lifecycle.cancel(userId, id, { reason: cancellationReason ?? NO_REASON_GIVEN })
    } else if (!isDeliverable(job) && status === 'completed' && roleOf(job, userId) === 'creator') {
      await this.lifecycle.complete(userId, id)
    } else {
      await inTransaction(db, (tx) => this.workIn(tx, userId, id, { status, progress }, ''))
    }
    return collections.updateShapeOf(db, id, userId)
  }

  /** PATCH /v1/collection/many/update: every item in one transaction (all or nothing). */
  async updateMany(userId: string, items: UpdateManyItem[]) {
    const { collections, db } = this.deps
    await inTransaction(db, async (tx) => {
      for (const [i, item] of items.entries()) {
        const path = `/collections/${i}`
        const { id, status, progress, cancellationReason, ...details } = item
        await prefixed(path, async () => {
          if (cancellationReason !== undefined)
            throw errors.field('/cancellationReason', 'cancel a job with PATCH /v1/collection/{id}')
          if (status === undefined && progress === undefined) {
            await collections.updateIn(tx, id, userId, details)
            return
          }
          const job = await visibleJob(this.deps, tx, id, userId)
          this.#sameDetails(job, details, '')
          if (
            !isDeliverable(job) &&
            (status === 'cancelled' || (status === 'completed' && roleOf(job, userId) === 'creator'))
          )
            throw errors.named(
              'STATUS_CHANGE_NOT_ALLOWED',
              'Completing or cancelling a job moves its escrow: use PATCH /v1/collection/{id}',
              {
                errors: [{ path: '/status', message: 'not in a bulk update' }],
              },
            )
          await this.workIn(tx, userId, id, { status, progress }, '')
        })
      }
    })
    const out = []
    for (const item of items) out.push(await collections.updateShapeOf(db, item.id, userId))
    return out
  }

  /**
   * POST /v1/collection/many: several child collections (deliverables) under one of the caller's
   * jobs, in one transaction (all or none); answers them in full form.
   */
  async createMany(userId: string, input: CreateManyInput) {
    const { collections, db } = this.deps
    const ids = await inTransaction(db, async (tx) => {
      const parent = await visibleJob(this.deps, tx, input.parent, userId, true)
      if (parent.creatorId !== userId)
        throw errors.forbidden('Child collections can only be added under your own collections')
      const out: string[] = []
      for (const [i, item] of input.collections.entries())
        await prefixed(`/collections/${i}`, async () => {
          out.push(
            await collections.createIn(tx, userId, { ...item, type: input.type, parent: input.parent }),
          )
        })
      return out
    })
    const created = []
    for (const id of ids) created.push(await collections.get(id, userId))
    return created
  }

  /** Details sent with a work step must be what the collection already has (400 otherwise). */
  #sameDetails(job: JobRow, details: Parameters<typeof changedDetail>[1], path: string) {
    const changed = changedDetail(job, details)
    if (changed)
      throw errors.field(
        `${path}${changed}`,
        'a status or progress change cannot change other fields; send them in a separate update',
      )
  }

  /** The work steps that move no money, inside `tx` (deliver, ask for changes, progress). */
  async workIn(tx: Tx, userId: string, id: string, change: WorkChange, path: string) {
    const row = await visibleJob(this.deps, tx, id, userId, true)
    if (isDeliverable(row)) return this.#deliverableIn(tx, userId, row, change, path)
    if (change.status !== undefined && change.progress !== undefined)
      throw errors.field(`${path}/progress`, 'send the progress and the status of a job separately')
    if (change.progress !== undefined) return this.#jobProgressIn(tx, userId, row, change.progress)
    const role = roleOf(row, userId)
    switch (change.status) {
      case 'completed':
        // The talent's "completed" is their delivery; the creator's completes (see patch()).
        if (role === 'talent') return this.lifecycle.deliverIn(tx, userId, id)
        checkTransition('complete', phaseOf(row), role)
        throw errors.named('STATUS_CHANGE_NOT_ALLOWED', 'Complete a job with PATCH /v1/collection/{id}')
      case 'ongoing':
        return this.lifecycle.requestChangesIn(tx, userId, id)
      default:
        throw errors.named(
          'STATUS_CHANGE_NOT_ALLOWED',
          NOT_DIRECT[change.status!] ?? `A job cannot be moved to ${change.status}`,
          {
            errors: [{ path: `${path}/status`, message: 'not a step this job can take here' }],
          },
        )
    }
  }

  /** The talent sets the progress of a job without deliverables, while it is ongoing. */
  async #jobProgressIn(tx: Tx, userId: string, row: JobRow, progress: number) {
    if (roleOf(row, userId) !== 'talent')
      throw errors.forbidden('Only the job’s assigned talent reports its progress')
    const phase = phaseOf(row)
    if (phase !== 'ongoing')
      throw errors.named(
        'JOB_STATE_MISMATCH',
        `Progress is reported while the job is ongoing; it is ${phase}`,
      )
    if ((await this.deps.collections.jobs.deliverables(tx, row.id)).length > 0)
      throw errors.named(
        'PROGRESS_FOLLOWS_DELIVERABLES',
        'This job’s progress follows its deliverables: update their progress instead',
      )
    await this.deps.collections.jobs.setProgress(tx, row.id, { progress })
    await audit(tx, this.deps.clock.now(), userId, 'work.progress', { collectionId: row.id, progress })
  }

  /**
   * The talent of the parent job sets a deliverable's status and progress while the job is
   * ongoing. `completed` means 100; a progress alone sets the status (0 pending, 100 completed,
   * ongoing between). The job's progress becomes the average of its deliverables'.
   */
  async #deliverableIn(tx: Tx, userId: string, row: JobRow, change: WorkChange, path: string) {
    const parent = await this.deps.collections.jobs.get(tx, row.parentId!, true)
    if (!parent) throw errors.notFound('collection')
    if (roleOf(parent, userId) !== 'talent')
      throw errors.forbidden('Only the assigned talent of the job updates the progress of its deliverables')
    const phase = phaseOf(parent)
    if (phase !== 'ongoing')
      throw errors.named(
        'JOB_STATE_MISMATCH',
        `Deliverables are updated while the job is ongoing; it is ${phase}`,
      )
    let { status, progress } = change
    if (status !== undefined && !DELIVERABLE_STATUSES.includes(status as DeliverableStatus))
      throw errors.field(`${path}/status`, `a deliverable is ${DELIVERABLE_STATUSES.join(', ')}`)
    if (status === 'completed') {
      if (progress !== undefined && progress !== 100)
        throw errors.field(`${path}/progress`, 'a completed deliverable is at 100')
      progress = 100
    }
    if (status === undefined && progress !== undefined)
      status = progress === 100 ? 'completed' : progress > 0 ? 'ongoing' : 'pending'
    await this.deps.collections.jobs.setProgress(tx, row.id, {
      ...(status !== undefined ? { status } : {}),
      ...(progress !== undefined ? { progress } : {}),
    })
    const jobProgress = await this.deps.collections.jobs.recomputeProgress(tx, parent.id)
    await audit(tx, this.deps.clock.now(), userId, 'work.deliverable_updated', {
      collectionId: parent.id,
      deliverableId: row.id,
      status,
      progress,
      jobProgress,
    })
  }
}

/** Runs `fn`, prefixing the field paths of a validation or rule error with `path`. */
async function prefixed(path: string, fn: () => Promise<void>) {
  try {
    await fn()
  } catch (err) {
    if (err instanceof AppError && Array.isArray(err.details.errors)) {
      const errs = (err.details.errors as FieldError[]).map((e) => ({ ...e, path: `${path}${e.path}` }))
      throw new AppError(err.code, err.message, { ...err.details, errors: errs })
    }
    if (err instanceof AppError) throw new AppError(err.code, `${path}: ${err.message}`, err.details)
    throw err
  }
}
