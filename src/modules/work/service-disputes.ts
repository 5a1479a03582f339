// Disputes: either party raises an issue on an ongoing or delivered job with a paid escrow, which
// freezes the escrow (no release, no refund). It ends by a split of what remains in escrow between
// the creator and the talent: proposed by one party and accepted by the other, or decided by an
// arbiter (the admin role). The split is paid by a durable job (SPLIT_JOB) through the escrow's
// normal legs; `escrowReleased` on the job records it.
import type { Tx } from '../../db/index.ts'
import { inTransaction } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { checkTransition, phaseOf } from '../collections/module.ts'
import type { JobRow } from '../collections/types.ts'
import { centsToUsd, roleOf, toCents, visibleJob, type WorkDeps } from './context.ts'
import { type DisputeRow, disputeForm } from './forms.ts'
import { audit } from './repo.ts'
import { type DisputeListFilter, disputeRepo } from './repo-disputes.ts'
import type { RaiseDisputeInput, SplitInput } from './schemas.ts'
import { SPLIT_JOB, type SplitJob } from './service-lifecycle.ts'

/** The account role that may decide disputes. */
export const ARBITER_ROLE = 'admin'

export class DisputeService {
  constructor(private readonly deps: WorkDeps) {}

  async #form(row: DisputeRow) {
    const [files, escrow] = await Promise.all([
      this.deps.files.summaries(this.deps.db, row.evidenceIds),
      this.deps.escrow.splitState(row.escrowId),
    ])
    return disputeForm(row, files, escrow.remainingCents)
  }

  /** A job the caller takes part in, with its dispute; 404 for strangers and jobs never disputed. */
  async #party(userId: string, collectionId: string) {
    const job = await visibleJob(this.deps, this.deps.db, collectionId, userId)
    const role = roleOf(job, userId)
    if (role === 'stranger') throw errors.notFound('dispute')
    const dispute = await disputeRepo.byCollection(this.deps.db, job.id)
    if (!dispute) throw errors.notFound('dispute')
    return { job, role, dispute }
  }

  /** A party raises a dispute: the job is `disputed`, `issue` its reason, the escrow frozen. */
  async raise(userId: string, collectionId: string, input: RaiseDisputeInput) {
    const { deps } = this
    const reason = input.reason.trim()
    if (!reason) throw errors.field('/reason', 'must not be blank')
    const evidence = [...new Set(input.evidence ?? [])]
    const seen = await visibleJob(deps, deps.db, collectionId, userId)
    checkTransition('dispute', phaseOf(seen), roleOf(seen, userId))
    // (read before the transaction: a release started later is refused by the frozen job)
    const escrow = seen.escrowId ? await deps.escrow.splitState(seen.escrowId) : undefined
    if (escrow?.status !== 'paid' || escrow.remainingCents <= 0n)
      throw errors.named(
        'DISPUTE_ESCROW_NOT_HELD',
        'Only a job whose escrow is paid and not fully released can be disputed',
      )
    await inTransaction(deps.db, async (tx) => {
      const job = await visibleJob(deps, tx, collectionId, userId, true)
      checkTransition('dispute', phaseOf(job), roleOf(job, userId))
      if (evidence.length) await deps.files.assertOwned(tx, userId, evidence, { path: '/evidence' })
      const now = deps.clock.now()
      const id = newId(now.getTime())
      await disputeRepo.insert(tx, {
        id,
        collectionId: job.id,
        escrowId: job.escrowId!,
        raisedBy: userId,
        reason,
        evidenceIds: evidence,
        createdAt: now,
        updatedAt: now,
      })
      await deps.collections.jobs.setStatus(tx, job.id, 'disputed', { issue: reason })
      await deps.events.emit(tx, {
        type: 'dispute.opened',
        actorId: userId,
        audience: [job.creatorId, ...(job.receiverId ? [job.receiverId] : [])],
        collectionId: job.id,
        data: { disputeId: id, collectionId: job.id },
      })
      await audit(tx, now, userId, 'work.dispute_raised', { disputeId: id, collectionId: job.id, reason })
    })
    return this.get(userId, collectionId)
  }

  /** The job's dispute, for its two parties. */
  async get(userId: string, collectionId: string) {
    const { dispute } = await this.#party(userId, collectionId)
    return this.#form(dispute)
  }

  /** The split in cents, which must add up to what remains in escrow (422 otherwise). */
  async #split(escrowId: string, input: SplitInput) {
    const creatorCents = toCents(input.creatorAmount, '/creatorAmount')
    const ownerCents = toCents(input.ownerAmount, '/ownerAmount')
    const { remainingCents } = await this.deps.escrow.splitState(escrowId)
    if (creatorCents + ownerCents !== remainingCents)
      throw errors.named(
        'DISPUTE_SPLIT_MISMATCH',
        `creatorAmount and ownerAmount must add up to what remains in escrow: ${centsToUsd(remainingCents)} USD`,
        {
          errors: [
            { path: '/ownerAmount', message: `creatorAmount + ownerAmount = ${centsToUsd(remainingCents)}` },
          ],
        },
      )
    return { creatorCents, ownerCents }
  }

  /** An open dispute of the job, locked with the job. */
  async #open(tx: Tx, job: JobRow) {
    const row = await disputeRepo.byCollection(tx, job.id, true)
    if (!row) throw errors.notFound('dispute')
    if (row.status !== 'open') throw errors.named('DISPUTE_SETTLED', 'This dispute is already settled')
    return row
  }

  /** A party proposes a split; it replaces any earlier proposal. */
  async propose(userId: string, collectionId: string, input: SplitInput) {
    const { deps } = this
    const { job, dispute } = await this.#party(userId, collectionId)
    const split = await this.#split(dispute.escrowId, input)
    await inTransaction(deps.db, async (tx) => {
      const locked = (await deps.collections.jobs.get(tx, job.id, true))!
      const row = await this.#open(tx, locked)
      const now = deps.clock.now()
      await disputeRepo.propose(tx, row.id, userId, split, now)
      await audit(tx, now, userId, 'work.dispute_proposed', {
        disputeId: row.id,
        collectionId: job.id,
        creatorCents: split.creatorCents.toString(),
        ownerCents: split.ownerCents.toString(),
      })
    })
    return this.get(userId, collectionId)
  }

  /** The other party accepts the proposal (naming its amounts): the dispute is settled. */
  async accept(userId: string, collectionId: string, input: SplitInput) {
    const { deps } = this
    const { job, role, dispute } = await this.#party(userId, collectionId)
    const split = await this.#split(dispute.escrowId, input)
    await inTransaction(deps.db, async (tx) => {
      const locked = (await deps.collections.jobs.get(tx, job.id, true))!
      const row = await this.#open(tx, locked)
      if (!row.proposedBy)
        throw errors.named('DISPUTE_NO_PROPOSAL', 'There is no proposal to accept: propose a split first')
      if (row.proposedBy === userId)
        throw errors.forbidden('The other party accepts a proposal; you made this one')
      if (
        BigInt(row.proposedCreatorCents!) !== split.creatorCents ||
        BigInt(row.proposedOwnerCents!) !== split.ownerCents
      )
        throw errors.named(
          'DISPUTE_PROPOSAL_MISMATCH',
          `The proposal is creatorAmount ${centsToUsd(row.proposedCreatorCents)} and ownerAmount ${centsToUsd(row.proposedOwnerCents)}; accept those amounts`,
        )
      checkTransition('settle', phaseOf(locked), role)
      await this.#resolve(tx, locked, row, split, { resolution: 'agreement', by: userId })
    })
    return this.get(userId, collectionId)
  }

  /** One dispute by its id or its job's id, for operators (the admin API checks the caller). */
  async forOperator(id: string) {
    const row =
      (await disputeRepo.get(this.deps.db, id)) ?? (await disputeRepo.byCollection(this.deps.db, id))
    return row ? this.#form(row) : undefined
  }

  /** Every dispute, for operators (the admin API checks the caller), oldest first. */
  async listAll(f: DisputeListFilter) {
    const { total, rows } = await disputeRepo.list(this.deps.db, f)
    return { total, rows: await Promise.all(rows.map((r) => this.#form(r))) }
  }

  /**
   * An arbiter (an account with the admin role) decides the split (`POST
   * /v1/admin/disputes/:id/decide`); `inTransaction` runs in the decision's transaction (the
   * operator's audit row).
   */
  async decide(
    arbiterId: string,
    collectionId: string,
    input: SplitInput & { note?: string },
    inTransaction_?: (tx: Tx, disputeId: string) => Promise<void>,
  ) {
    const { deps } = this
    const arbiter = await deps.accounts.getFullUser(arbiterId).catch(() => undefined)
    if (arbiter?.role !== ARBITER_ROLE) throw errors.forbidden('Only an arbiter may decide a dispute')
    const job = await deps.collections.jobs.get(deps.db, collectionId)
    if (!job) throw errors.notFound('collection')
    const dispute = await disputeRepo.byCollection(deps.db, job.id)
    if (!dispute) throw errors.notFound('dispute')
    const split = await this.#split(dispute.escrowId, input)
    await inTransaction(deps.db, async (tx) => {
      const locked = (await deps.collections.jobs.get(tx, job.id, true))!
      const row = await this.#open(tx, locked)
      checkTransition('decide', phaseOf(locked), 'arbiter')
      await this.#resolve(tx, locked, row, split, {
        resolution: 'arbiter',
        by: arbiterId,
        note: (input.note ?? '').trim(),
      })
      await inTransaction_?.(tx, row.id)
    })
    const row = (await disputeRepo.byCollection(deps.db, collectionId))!
    return this.#form(row)
  }

  /** The split is final: the job is resolved and the split queued for payment. */
  async #resolve(
    tx: Tx,
    job: JobRow,
    row: DisputeRow,
    split: { creatorCents: bigint; ownerCents: bigint },
    how: { resolution: 'agreement' | 'arbiter'; by: string; note?: string },
  ) {
    const { deps } = this
    const now = deps.clock.now()
    await disputeRepo.resolve(tx, row.id, { ...split, ...how }, now)
    await deps.collections.jobs.setStatus(tx, job.id, 'resolved')
    await deps.collections.jobs.setEscrowReleased(tx, job.id, {
      creatorReleased: false,
      creatorAmount: centsToUsd(split.creatorCents)!,
      ownerReleased: false,
      ownerAmount: centsToUsd(split.ownerCents)!,
    })
    const payload: SplitJob = {
      collectionId: job.id,
      escrowId: row.escrowId,
      key: `dispute:${row.id}`,
      ownerCents: split.ownerCents.toString(),
      disputeId: row.id,
    }
    await deps.jobs.enqueue(tx, SPLIT_JOB, payload, { dedupeKey: `${SPLIT_JOB}:${payload.key}` })
    await deps.events.emit(tx, {
      type: 'dispute.decided',
      actorId: how.by,
      audience: [job.creatorId, ...(job.receiverId ? [job.receiverId] : [])],
      collectionId: job.id,
      data: { disputeId: row.id, collectionId: job.id },
    })
    await audit(
      tx,
      now,
      how.by,
      how.resolution === 'agreement' ? 'work.dispute_settled' : 'work.dispute_decided',
      {
        disputeId: row.id,
        collectionId: job.id,
        creatorCents: split.creatorCents.toString(),
        ownerCents: split.ownerCents.toString(),
      },
    )
  }

  /** SPLIT_JOB: pays the split of a cancelled or disputed job, then records that it is paid. */
  async payOut(job: SplitJob) {
    const { deps } = this
    const want =
      job.ownerCents !== undefined
        ? { ownerCents: BigInt(job.ownerCents) }
        : { ownerPercent: job.ownerPercent ?? 0 }
    const result = await deps.escrow.settleSplit(job.escrowId, want, job.key)
    await inTransaction(deps.db, async (tx) => {
      const now = deps.clock.now()
      if (result.outcome === 'paid')
        await deps.collections.jobs.setEscrowReleased(tx, job.collectionId, {
          creatorReleased: result.creatorCents > 0n,
          creatorAmount: centsToUsd(result.creatorCents)!,
          ownerReleased: result.ownerCents > 0n,
          ownerAmount: centsToUsd(result.ownerCents)!,
        })
      if (job.disputeId) await disputeRepo.markPaid(tx, job.disputeId, now)
      await audit(tx, now, null, 'work.escrow_split_paid', {
        collectionId: job.collectionId,
        escrowId: job.escrowId,
        outcome: result.outcome,
        creatorCents: result.creatorCents.toString(),
        ownerCents: result.ownerCents.toString(),
        ...(job.disputeId ? { disputeId: job.disputeId } : {}),
      })
    })
  }
}
