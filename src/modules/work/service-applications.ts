// Applications: a talent applies to a public job with a message (and a price); the creator lists
// the job's applications and accepts one (the applicant is assigned) or rejects it.
import { inTransaction } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { formatCents } from '../../platform/money/index.ts'
import { FINAL_PHASES, phaseOf } from '../collections/module.ts'
import {
  assertTopLevel,
  assignTalent,
  pageInfo,
  pageOf,
  toCents,
  visibleJob,
  type WorkDeps,
} from './context.ts'
import { type ApplicationRow, applicationForm, embeddedLookups, listEmbeds, lookups } from './forms.ts'
import { type ApplicationFilters, applicationRepo, audit } from './repo.ts'
import type { ApplyInput, ListApplicationsQueryT, MyApplicationsQueryT } from './schemas.ts'

export class ApplicationService {
  constructor(private readonly deps: WorkDeps) {}

  /**
   * One page with its total, the applicants and the jobs, in one statement; `gate` (a condition
   * of the statement) must hold for anything to be read.
   */
  async #page(
    filters: ApplicationFilters,
    q: { page?: number; limit?: number },
    gate?: Parameters<typeof applicationRepo.page>[4],
  ) {
    const { db, collections } = this.deps
    const p = pageOf(q)
    const { total, rows } = await applicationRepo.page(db, filters, p, listEmbeds(collections), gate)
    const l = embeddedLookups(
      collections.jobs,
      rows.map((r): [string, unknown] => [r.applicantId, r.applicantJson]),
      rows.map((r): [string, unknown] => [r.collectionId, r.collectionJson]),
    )
    return {
      data: rows.map((r) => applicationForm(r, l)),
      ...pageInfo(p, total),
    }
  }

  async #form(row: ApplicationRow) {
    const l = await lookups(this.deps.collections, this.deps.db, [row.applicantId], [row.collectionId])
    return applicationForm(row, l)
  }

  /** A talent applies to a public job that has no talent yet. */
  async apply(userId: string, collectionId: string, input: ApplyInput) {
    const { deps } = this
    const message = input.message.trim()
    if (!message) throw errors.field('/message', 'must not be blank')
    const cents = input.amount === undefined ? null : toCents(input.amount, '/amount')
    if (cents === 0n) throw errors.field('/amount', 'amount must be more than 0')
    // The creator's rules on who may apply to their jobs (read before the transaction opens).
    const seen = await visibleJob(deps, deps.db, collectionId, userId)
    await deps.connections.check(seen.creatorId, userId, 'SEND_APPLICATION')
    const id = await inTransaction(deps.db, async (tx) => {
      const job = await visibleJob(deps, tx, collectionId, userId, true)
      if (job.creatorId === userId) throw errors.forbidden('You cannot apply to your own job')
      assertTopLevel(job, 'Applications')
      if (job.isPrivate)
        throw errors.named('JOB_INVITE_ONLY', 'A private job takes invites, not applications')
      const phase = phaseOf(job)
      if (FINAL_PHASES.includes(phase))
        throw errors.named('COLLECTION_NOT_OPEN', `This job is ${phase}; it takes no more applications`)
      if (job.receiverId) throw errors.named('JOB_HAS_TALENT', 'This job already has its talent')
      if (await applicationRepo.pendingOf(tx, job.id, userId))
        throw errors.named(
          'APPLICATION_ALREADY_PENDING',
          'You already have a pending application to this job',
        )
      const now = deps.clock.now()
      const id = newId(now.getTime())
      await applicationRepo.insert(tx, {
        id,
        collectionId: job.id,
        applicantId: userId,
        message,
        amountCents: cents,
        createdAt: now,
        updatedAt: now,
      })
      await deps.collections.jobs.addApplication(tx, job.id, id)
      await deps.events.emit(tx, {
        type: 'application.sent',
        actorId: userId,
        audience: [job.creatorId],
        collectionId: job.id,
        data: { applicationId: id, collectionId: job.id },
      })
      await audit(tx, now, userId, 'work.application_sent', { applicationId: id, collectionId: job.id })
      return id
    })
    return this.#form((await applicationRepo.get(deps.db, id))!)
  }

  /** The applications of a job (its creator only), newest first. */
  async listForJob(userId: string, collectionId: string, q: ListApplicationsQueryT) {
    const { deps } = this
    // Read only when the job is the caller's own; when nothing is read, the job says why (404,
    // 403) or has nothing to list.
    const listed = await this.#page(
      { collectionId, ...(q.status ? { status: q.status } : {}) },
      q,
      deps.collections.jobs.ownJobSql(collectionId, userId),
    )
    if (listed.total > 0) return listed
    const job = await visibleJob(deps, deps.db, collectionId, userId)
    if (job.creatorId !== userId) throw errors.forbidden('Only the job’s creator may list its applications')
    return listed
  }

  /** The caller's own applications, newest first. */
  mine(userId: string, q: MyApplicationsQueryT) {
    return this.#page(
      {
        applicantId: userId,
        ...(q.status ? { status: q.status } : {}),
        ...(q.collection ? { collectionId: q.collection } : {}),
      },
      q,
    )
  }

  /** One application: for its applicant and the job's creator (404 for anyone else). */
  async get(userId: string, id: string) {
    return this.#form(await this.#seen(userId, id))
  }

  async #seen(userId: string, id: string) {
    const row = await applicationRepo.get(this.deps.db, id)
    if (!row) throw errors.notFound('application')
    if (row.applicantId === userId) return row
    const job = await this.deps.collections.jobs.get(this.deps.db, row.collectionId)
    if (job?.creatorId !== userId) throw errors.notFound('application')
    return row
  }

  /**
   * The creator accepts an application: the applicant is assigned. A price the application asked
   * becomes the job's paymentFee while no escrow is linked to the job (an escrow keeps its price).
   */
  async accept(userId: string, id: string) {
    const { deps } = this
    const seen = await this.#seen(userId, id)
    if (seen.applicantId === userId)
      throw errors.forbidden('Only the job’s creator may accept an application')
    await inTransaction(deps.db, async (tx) => {
      const job = await deps.collections.jobs.get(tx, seen.collectionId, true)
      if (!job) throw errors.notFound('collection')
      const app = (await applicationRepo.get(tx, id, true))!
      if (app.status !== 'pending')
        throw errors.named('APPLICATION_ALREADY_ANSWERED', `This application is already ${app.status}`)
      const price =
        app.amountCents !== null && !job.escrowId ? formatCents(BigInt(app.amountCents)) : undefined
      await assignTalent(deps, tx, job, app.applicantId, 'creator', {
        applicationId: id,
        ...(price !== undefined ? { paymentFee: price } : {}),
      })
      const now = deps.clock.now()
      await applicationRepo.setStatus(tx, id, 'accepted', now)
      await deps.events.emit(tx, {
        type: 'application.accepted',
        actorId: userId,
        audience: [app.applicantId],
        collectionId: job.id,
        data: { applicationId: id, collectionId: job.id },
      })
      await audit(tx, now, userId, 'work.application_accepted', { applicationId: id, collectionId: job.id })
    })
    return this.#form((await applicationRepo.get(deps.db, id))!)
  }

  /** The creator rejects a pending application. */
  async reject(userId: string, id: string) {
    const { deps } = this
    const seen = await this.#seen(userId, id)
    if (seen.applicantId === userId)
      throw errors.forbidden('Only the job’s creator may reject an application')
    await inTransaction(deps.db, async (tx) => {
      const app = (await applicationRepo.get(tx, id, true))!
      if (app.status !== 'pending')
        throw errors.named('APPLICATION_ALREADY_ANSWERED', `This application is already ${app.status}`)
      const now = deps.clock.now()
      await applicationRepo.setStatus(tx, id, 'rejected', now)
      await deps.events.emit(tx, {
        type: 'application.rejected',
        actorId: userId,
        audience: [app.applicantId],
        collectionId: app.collectionId,
        data: { applicationId: id, collectionId: app.collectionId },
      })
      await audit(tx, now, userId, 'work.application_rejected', {
        applicationId: id,
        collectionId: app.collectionId,
      })
    })
    return this.#form((await applicationRepo.get(deps.db, id))!)
  }
}
