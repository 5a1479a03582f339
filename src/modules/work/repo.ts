// The only SQL on invites and applications, and the work feature's audit records. Lists are one
// page by an indexed order; the count runs only when the page does not tell the total.
import { type ExpressionBuilder, type Insertable, sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { countedPage, type PageRequest } from '../../db/reads.ts'
import type {
  ApplicationStatus,
  ApplicationsTable,
  InviteStatus,
  InvitesTable,
} from '../../db/tables/work.ts'
import type { DB } from '../../db/types.ts'
import { newId } from '../../platform/crypto/ids.ts'

export interface InviteFilters {
  /** the caller: their sent and received invites */
  userId: string
  /** only those the caller sent, or received */
  role?: 'sent' | 'received'
  status?: InviteStatus
  collectionId?: string
}

export interface ApplicationFilters {
  collectionId?: string
  applicantId?: string
  status?: ApplicationStatus
}

function inviteWhere(f: InviteFilters) {
  return (eb: ExpressionBuilder<DB, 'invites'>) => {
    const mine =
      f.role === 'sent'
        ? eb('senderId', '=', f.userId)
        : f.role === 'received'
          ? eb('receiverId', '=', f.userId)
          : eb.or([eb('senderId', '=', f.userId), eb('receiverId', '=', f.userId)])
    const conds = [mine]
    if (f.status) conds.push(eb('status', '=', f.status))
    if (f.collectionId) conds.push(eb('collectionId', '=', f.collectionId))
    return eb.and(conds)
  }
}

function applicationWhere(f: ApplicationFilters) {
  return (eb: ExpressionBuilder<DB, 'applications'>) => {
    const conds = []
    if (f.collectionId) conds.push(eb('collectionId', '=', f.collectionId))
    if (f.applicantId) conds.push(eb('applicantId', '=', f.applicantId))
    if (f.status) conds.push(eb('status', '=', f.status))
    return eb.and(conds)
  }
}

export const inviteRepo = {
  async insert(ex: Executor, row: Insertable<InvitesTable>) {
    await ex.insertInto('invites').values(row).execute()
  },

  get(ex: Executor, id: string, forUpdate = false) {
    let q = ex.selectFrom('invites').selectAll().where('id', '=', id)
    if (forUpdate) q = q.forUpdate()
    return q.executeTakeFirst()
  },

  /** The invites of `ids` that `userId` sent or received. */
  ofParty(ex: Executor, ids: string[], userId: string) {
    if (ids.length === 0) return Promise.resolve([])
    return ex
      .selectFrom('invites')
      .selectAll()
      .where('id', 'in', ids)
      .where((eb) => eb.or([eb('senderId', '=', userId), eb('receiverId', '=', userId)]))
      .execute()
  },

  pendingOf(ex: Executor, collectionId: string, receiverId: string) {
    return ex
      .selectFrom('invites')
      .select('id')
      .where('collectionId', '=', collectionId)
      .where('receiverId', '=', receiverId)
      .where('status', '=', 'pending')
      .executeTakeFirst()
  },

  async setStatus(ex: Executor, id: string, status: InviteStatus, now: Date) {
    await ex
      .updateTable('invites')
      .set({
        status,
        ...(status === 'accepted' ? { acceptedAt: now } : { closedAt: now }),
        updatedAt: now,
        version: sql`version + 1`,
      })
      .where('id', '=', id)
      .execute()
  },

  /** Expires the collection's other pending invites; answers their ids. */
  async expirePending(ex: Executor, collectionId: string, now: Date, exceptId?: string) {
    let q = ex
      .updateTable('invites')
      .set({ status: 'expired', closedAt: now, updatedAt: now, version: sql`version + 1` })
      .where('collectionId', '=', collectionId)
      .where('status', '=', 'pending')
    if (exceptId) q = q.where('id', '<>', exceptId)
    return (await q.returning('id').execute()).map((r) => r.id)
  },

  /** One page, newest first, with the number of all that match. */
  page(ex: Executor, f: InviteFilters, p: PageRequest) {
    return countedPage(
      ex.selectFrom('invites').where(inviteWhere(f)),
      (q) => q.selectAll(),
      { by: ['createdAt', 'id'], first: 'newest' },
      p,
      'when-needed',
    )
  },
}

export const applicationRepo = {
  async insert(ex: Executor, row: Insertable<ApplicationsTable>) {
    await ex.insertInto('applications').values(row).execute()
  },

  get(ex: Executor, id: string, forUpdate = false) {
    let q = ex.selectFrom('applications').selectAll().where('id', '=', id)
    if (forUpdate) q = q.forUpdate()
    return q.executeTakeFirst()
  },

  pendingOf(ex: Executor, collectionId: string, applicantId: string) {
    return ex
      .selectFrom('applications')
      .select('id')
      .where('collectionId', '=', collectionId)
      .where('applicantId', '=', applicantId)
      .where('status', '=', 'pending')
      .executeTakeFirst()
  },

  async setStatus(ex: Executor, id: string, status: ApplicationStatus, now: Date) {
    await ex
      .updateTable('applications')
      .set({ status, decidedAt: now, updatedAt: now, version: sql`version + 1` })
      .where('id', '=', id)
      .execute()
  },

  /** Expires the collection's other pending applications. */
  async expirePending(ex: Executor, collectionId: string, now: Date, exceptId?: string) {
    let q = ex
      .updateTable('applications')
      .set({ status: 'expired', decidedAt: now, updatedAt: now, version: sql`version + 1` })
      .where('collectionId', '=', collectionId)
      .where('status', '=', 'pending')
    if (exceptId) q = q.where('id', '<>', exceptId)
    await q.execute()
  },

  /** One page, newest first, with the number of all that match. */
  page(ex: Executor, f: ApplicationFilters, p: PageRequest) {
    return countedPage(
      ex.selectFrom('applications').where(applicationWhere(f)),
      (q) => q.selectAll(),
      { by: ['createdAt', 'id'], first: 'newest' },
      p,
      'when-needed',
    )
  },
}

/** An audit record of a step of the work feature, in the step's transaction. */
export async function audit(
  ex: Executor,
  at: Date,
  userId: string | null,
  action: string,
  meta: Record<string, unknown>,
) {
  await ex
    .insertInto('auditLog')
    .values({ id: newId(at.getTime()), userId, action, ip: null, meta: JSON.stringify(meta), createdAt: at })
    .execute()
}
