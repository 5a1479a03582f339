// SQL for what the work feature records on a job (a collection): its talent, status, delivery,
// progress, invites, applications and ratings; and the compact views of collections and people
// that invites, applications and reviews embed.
import { type RawBuilder, type SqlBool, sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { type UserSummaryJson, userSummaryJson } from '../account/module.ts'
import { selectCollections, USER_COLUMNS } from './repo.ts'

/** A person as jobRepo.people reads them, as JSON (see personJson). */
export type PersonJson = UserSummaryJson & { live: boolean }

/** The columns of a collection that collectionRef reads, as JSON (see collectionRefJson). */
export interface CollectionRefJson {
  id: string
  name: string
  description: string
  type: string
  category: string
  status: string
  /** the numeric's text, as the driver reads it */
  paymentFee: string
  isPrivate: boolean
  /** ISO 8601 in UTC with milliseconds, as Date#toISOString writes it */
  deliveryDate: string | null
  creatorId: string
  receiverId: string | null
  parentId: string | null
  escrowPaid: boolean
  isDeleted: boolean
}

/**
 * The person whose id is `id` (an expression of the reading query) with whether the account is
 * live, as JSON; null when there is no such account. For lists that embed the people they name.
 */
export function personJson(id: RawBuilder<unknown>): RawBuilder<PersonJson | null> {
  return sql<PersonJson | null>`(${userSummaryJson(id)}
    || (select jsonb_build_object('live', u.deleted_at is null) from users u where u.id = ${id}))`
}

/**
 * The collection whose id is `id` (an expression of the reading query) as records embed it
 * (deleted ones too), as JSON; null when there is none.
 */
export function collectionRefJson(id: RawBuilder<unknown>): RawBuilder<CollectionRefJson | null> {
  return sql<CollectionRefJson | null>`(select jsonb_build_object(
      'id', c.id, 'name', c.name, 'description', c.description, 'type', c.type,
      'category', c.category, 'status', c.status, 'paymentFee', c.payment_fee::text,
      'isPrivate', c.is_private,
      'deliveryDate', to_char(c.delivery_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'creatorId', c.creator_id, 'receiverId', c.receiver_id, 'parentId', c.parent_id,
      'escrowPaid', c.escrow_paid, 'isDeleted', c.is_deleted)
    from collections c where c.id = ${id})`
}

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

/**
 * Whether the live collection `id` is `userId`'s own (its creator: who may see it and list its
 * applications), as a condition of another statement.
 */
export function ownJobSql(id: string, userId: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`exists (select 1 from collections j
    where j.id = ${id} and j.creator_id = ${userId} and j.is_deleted = false)`
}

/**
 * The job's record of a new invite (its id in invite_ids, the invitee in invitee_ids, each once),
 * as an UPDATE to run inside another statement, only when `when` holds; the row two appends
 * (jobRepo.append) would leave, its version moved by two.
 */
export function addInviteSql(
  id: string,
  inviteId: string,
  inviteeId: string,
  now: Date,
  when: RawBuilder<SqlBool>,
): RawBuilder<unknown> {
  return sql`update collections set
      invite_ids = case when ${inviteId} = any(invite_ids) then invite_ids
        else array_append(invite_ids, ${inviteId}::text) end,
      invitee_ids = case when ${inviteeId} = any(invitee_ids) then invitee_ids
        else array_append(invitee_ids, ${inviteeId}::text) end,
      updated_at = ${now}, version = version + 2
    where id = ${id} and ${when}`
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
