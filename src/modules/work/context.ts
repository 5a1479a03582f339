// What every part of the work feature shares: its dependencies, loading a job as the caller may
// see it, the caller's part in it, amounts in USD cents, pages, and assigning the talent (an
// accepted invite or application) through the state machine.
import type { Db, Executor, Tx } from '../../db/index.ts'
import type { PageRequest } from '../../db/reads.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import { centsToNumber, usdTextToCents } from '../../platform/money/index.ts'
import type { AccountService } from '../account/types.ts'
import { checkTransition, paymentFeeText, phaseOf, storedAs } from '../collections/module.ts'
import type { CollectionService, JobRow } from '../collections/types.ts'
import type { ConnectionGate } from '../connections/types.ts'
import type { EscrowService } from '../escrow/types.ts'
import type { EventService } from '../events/types.ts'
import { applicationRepo, audit, inviteRepo } from './repo.ts'

export interface FileAccess {
  summaries(ex: Executor, ids: readonly string[]): Promise<Map<string, object>>
  assertOwned(
    ex: Executor,
    userId: string,
    ids: readonly string[],
    opts?: { path?: string },
  ): Promise<unknown>
}

export interface WorkDeps {
  db: Db
  clock: Clock
  jobs: JobQueue
  collections: CollectionService
  escrow: EscrowService
  files: FileAccess
  accounts: AccountService
  events: EventService
  /** the recipient's connection filters, checked before an invite or an application */
  connections: ConnectionGate
}

export type Role = 'creator' | 'talent' | 'stranger'

export function roleOf(row: JobRow, userId: string): Role {
  if (row.creatorId === userId) return 'creator'
  if (row.receiverId === userId) return 'talent'
  return 'stranger'
}

/** A job the caller may see (404 otherwise: missing, deleted, or someone else's private one). */
export async function visibleJob(
  deps: WorkDeps,
  ex: Executor,
  id: string,
  userId: string,
  forUpdate = false,
) {
  const row = await deps.collections.jobs.get(ex, id, forUpdate)
  if (!row || !deps.collections.jobs.canSee(row, userId)) throw errors.notFound('collection')
  return row
}

/** Deliverables are children without an escrow of their own; jobs are everything else. */
export function isDeliverable(row: JobRow): boolean {
  return row.parentId !== null && row.escrowId === null
}

/** A top-level collection, the only kind that takes invites and applications. */
export function assertTopLevel(row: JobRow, what: string) {
  if (row.parentId !== null)
    throw errors.named(
      'CHILD_COLLECTION_NOT_ALLOWED',
      `${what} go to the job itself, not to one of its child collections`,
    )
}

/** USD (a JSON number or a decimal string, at most two decimals) → cents; 400 at `path` otherwise. */
export function toCents(value: string | number, path: string): bigint {
  let text: string
  try {
    text = paymentFeeText(value, path)
  } catch {
    throw errors.field(path, `${path.slice(1)} must be USD, 0 or more, with at most two decimals`)
  }
  // paymentFeeText admits only USD text, so the conversion always succeeds
  return usdTextToCents(text)!
}

export const centsToUsd = (cents: bigint | string | null) =>
  cents === null ? null : centsToNumber(BigInt(cents))

export function pageOf(q: { page?: number; limit?: number }): PageRequest {
  return { page: q.page ?? 1, limit: q.limit ?? 12 }
}

/** The paging fields of a list answer. */
export function pageInfo(p: PageRequest, total: number) {
  return { total, pages: Math.ceil(total / p.limit), page: p.page, limit: p.limit }
}

/**
 * Assigns `talentId` to the job (locked by the caller): pending → waiting, and on to ongoing when
 * its escrow is already paid. The job's other pending invites and applications expire. `by` is
 * the party that made the step (the invitee accepting, or the creator accepting an application).
 */
export async function assignTalent(
  deps: WorkDeps,
  tx: Tx,
  row: JobRow,
  talentId: string,
  by: 'invitee' | 'creator',
  opts: { paymentFee?: string; inviteId?: string; applicationId?: string } = {},
) {
  if (row.receiverId) throw errors.named('JOB_HAS_TALENT', 'This job already has its talent')
  let phase = checkTransition('assign', phaseOf(row), by)
  if (row.escrowStatus === 'paid') phase = checkTransition('fund', phase, 'payment')
  const now = deps.clock.now()
  await deps.collections.jobs.assignTalent(tx, row.id, talentId, {
    status: storedAs(phase).status,
    ...(opts.paymentFee !== undefined ? { paymentFee: opts.paymentFee } : {}),
  })
  await inviteRepo.expirePending(tx, row.id, now, opts.inviteId)
  await applicationRepo.expirePending(tx, row.id, now, opts.applicationId)
  await audit(tx, now, by === 'invitee' ? talentId : row.creatorId, 'work.talent_assigned', {
    collectionId: row.id,
    talentId,
    status: storedAs(phase).status,
    ...(opts.inviteId ? { inviteId: opts.inviteId } : {}),
    ...(opts.applicationId ? { applicationId: opts.applicationId } : {}),
  })
  return phase
}
