// SQL for what the work feature records on a job (a collection): its talent, status, delivery,
// progress, invites, applications and ratings; and the compact views of collections and people
// that invites, applications and reviews embed.
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { selectCollections, USER_COLUMNS } from './repo.ts'

/** The columns of a job the work feature may set. */
export interface JobPatch {
  status?: string
  recipientCompletedJob?: boolean
  receiverId?: string
  inviteAccepted?: boolean
  inviteeIds?: string[]
  paymentFee?: string
  progress?: number
  cancellationReason?: string
  cancelledAt?: Date
  issue?: string
  deliveryNote?: string
  deliveryAttachmentIds?: string[]
  deliveredAt?: Date | null
  completedAt?: Date
  score?: number
  escrowReleased?: object
}

export const jobRepo = {
  /** A person's newest live jobs as creator or talent, for operators (collections_creator,
   * collections_receiver). */
  ofPerson(ex: Executor, userId: string, limit: number) {
    return ex
      .selectFrom('collections')
      .select([
        'id',
        'name',
        'type',
        'status',
        'creatorId',
        'receiverId',
        'escrowId',
        'paymentFee',
        'createdAt',
      ])
      .where((eb) => eb.or([eb('creatorId', '=', userId), eb('receiverId', '=', userId)]))
      .where('isDeleted', '=', false)
      .orderBy('createdAt', 'desc')
      .limit(limit)
      .execute()
  },

  async patch(ex: Executor, id: string, patch: JobPatch, now: Date) {
    const { escrowReleased, ...rest } = patch
    await ex
      .updateTable('collections')
      .set({
        ...rest,
        ...(escrowReleased ? { escrowReleased: JSON.stringify(escrowReleased) } : {}),
        updatedAt: now,
        version: sql`version + 1`,
      })
      .where('id', '=', id)
      .execute()
  },

  /** Appends `value` to the text-array column `column` (once). */
  async append(
    ex: Executor,
    id: string,
    column: 'invite_ids' | 'invitee_ids' | 'application_ids' | 'rating_ids',
    value: string,
    now: Date,
  ) {
    const col = sql.ref(column)
    await sql`update collections
      set ${col} = case when ${value} = any(${col}) then ${col} else array_append(${col}, ${value}::text) end,
          updated_at = ${now}, version = version + 1
      where id = ${id}`.execute(ex)
  },

  async removeInvitee(ex: Executor, id: string, userId: string, now: Date) {
    await ex
      .updateTable('collections')
      .set({ inviteeIds: sql`array_remove(invitee_ids, ${userId}::text)`, updatedAt: now })
      .where('id', '=', id)
      .execute()
  },

  /** Live children of a job that have no escrow of their own (its deliverables), oldest first. */
  deliverables(ex: Executor, parentId: string, forUpdate = false) {
    let q = selectCollections(ex)
      .where('c.parentId', '=', parentId)
      .where('c.isDeleted', '=', false)
      .where('c.escrowId', 'is', null)
      .orderBy('c.createdAt', 'asc')
      .orderBy('c.id', 'asc')
    if (forUpdate) q = q.forUpdate()
    return q.execute()
  },

  /** Collections by id (deleted ones too: a record that names one still shows what it was). */
  byIds(ex: Executor, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([])
    return selectCollections(ex).where('c.id', 'in', ids).execute()
  },

  /** People by id with whether the account is live (not deleted). */
  people(ex: Executor, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([])
    return ex
      .selectFrom('users')
      .select([...USER_COLUMNS, 'deletedAt'])
      .where('id', 'in', ids)
      .execute()
  },
}
