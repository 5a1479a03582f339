// The only SQL on invites and applications, and the work feature's audit records. Lists are one
// page by an indexed order with the people and collections it names and the number of all that
// match, in one statement.
import {
  type ExpressionBuilder,
  type Insertable,
  type OperationNodeSource,
  type RawBuilder,
  type Selectable,
  type SqlBool,
  sql,
} from 'kysely'
import type { Executor } from '../../db/index.ts'
import type { PageRequest } from '../../db/reads.ts'
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

/**
 * The SQL a list embeds beside each row (the collections module's): the person and the
 * collection whose id is an expression of the reading query, as JSON.
 */
export interface ListEmbeds {
  person(id: RawBuilder<unknown>): RawBuilder<unknown>
  ref(id: RawBuilder<unknown>): RawBuilder<unknown>
}

/**
 * `page` (a page of a list, newest first by created_at and id) and `count` (a query selecting the
 * number of all the list's rows as `page_total`), in one statement that always answers a row: the
 * count's, joined to each row of the page (to none past the end, where the page's columns are
 * null).
 */
async function pageAndTotal<R>(ex: Executor, count: OperationNodeSource, page: OperationNodeSource) {
  const { rows } = await sql<Partial<R> & { id: string | null; pageTotal: string | number | bigint }>`
    select p.*, t.page_total from (${count}) t left join lateral (${page}) p on true
    order by p.created_at desc, p.id desc`.execute(ex)
  const total = Number(rows[0]?.pageTotal ?? 0)
  const onPage = rows.filter((r) => r.id !== null) as unknown as (R & { pageTotal?: unknown })[]
  for (const r of onPage) delete r.pageTotal
  return { total, rows: onPage as R[] }
}

const offsetOf = (p: PageRequest) => (p.page - 1) * p.limit

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

/** An invite of a list page with the JSON of what it names (see ListEmbeds). */
export type InviteListRow = Selectable<InvitesTable> & {
  senderJson: unknown
  receiverJson: unknown
  collectionJson: unknown
}

/** An application of a list page with the JSON of what it names (see ListEmbeds). */
export type ApplicationListRow = Selectable<ApplicationsTable> & {
  applicantJson: unknown
  collectionJson: unknown
}

export const inviteRepo = {
  /**
   * Sends an invite in one statement: `row` is written unless the receiver's account is not live
   * or they hold a pending invite to the job; only when it is, `onJob` (an UPDATE given the
   * condition, the collections module's record of the invite) and the audit record `audited`
   * run with it. Answers whether the receiver is live, the pending invite's id, and the invite
   * written (absent when not) with its people and job read by `embed`.
   */
  async send(
    ex: Executor,
    row: Insertable<InvitesTable> & { id: string; collectionId: string; receiverId: string; createdAt: Date },
    embed: ListEmbeds,
    onJob: (written: RawBuilder<SqlBool>) => RawBuilder<unknown>,
    audited: { id: string; userId: string; action: string; meta: Record<string, unknown> },
  ) {
    const written = sql<SqlBool>`exists (select 1 from written)`
    const { rows } = await sql<
      Partial<InviteListRow> & { receiverLive: boolean; pendingId: string | null }
    >`with receiver as (
        select exists (select 1 from users u where u.id = ${row.receiverId} and u.deleted_at is null) as live
      ), pending as (
        select i.id from invites i
        where i.collection_id = ${row.collectionId} and i.receiver_id = ${row.receiverId} and i.status = 'pending'
        limit 1
      ), written as (
        insert into invites (id, collection_id, sender_id, receiver_id, message, created_at, updated_at)
        select ${row.id}::text, ${row.collectionId}::text, ${row.senderId}::text, ${row.receiverId}::text,
          ${row.message}::text, ${row.createdAt}::timestamptz, ${row.updatedAt}::timestamptz
        where (select live from receiver) and not exists (select 1 from pending)
        returning *
      ), job as (${onJob(written)}
      ), audited as (
        insert into audit_log (id, user_id, action, ip, meta, created_at)
        select ${audited.id}::text, ${audited.userId}::text, ${audited.action}::text, null::text,
          ${JSON.stringify(audited.meta)}::jsonb, ${row.createdAt}::timestamptz
        where ${written}
      )
      select (select live from receiver) as receiver_live, (select id from pending) as pending_id, w.*,
        ${embed.person(sql`w.sender_id`)} as sender_json, ${embed.person(sql`w.receiver_id`)} as receiver_json,
        ${embed.ref(sql`w.collection_id`)} as collection_json
      from (select 1) one left join written w on true`.execute(ex)
    const { receiverLive, pendingId, ...invite } = rows[0]!
    return { receiverLive, pendingId, invite: invite.id ? (invite as InviteListRow) : undefined }
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

  /**
   * One page, newest first, with the number of all that match and each invite's sender,
   * receiver and collection (`embed`), in one statement.
   */
  page(ex: Executor, f: InviteFilters, p: PageRequest, embed: ListEmbeds) {
    const filtered = ex.selectFrom('invites').where(inviteWhere(f))
    const ref = (column: string) => sql.ref(`invites.${column}`)
    return pageAndTotal<InviteListRow>(
      ex,
      filtered.select((eb) => eb.fn.countAll().as('pageTotal')),
      filtered
        .selectAll()
        .select([
          embed.person(ref('sender_id')).as('senderJson'),
          embed.person(ref('receiver_id')).as('receiverJson'),
          embed.ref(ref('collection_id')).as('collectionJson'),
        ])
        .orderBy('createdAt', 'desc')
        .orderBy('id', 'desc')
        .limit(p.limit)
        .offset(offsetOf(p)),
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

  /**
   * One page, newest first, with the number of all that match and each application's applicant
   * and collection (`embed`), in one statement. `gate` (a condition of the statement, optional)
   * must hold for any row or count to be read.
   */
  page(ex: Executor, f: ApplicationFilters, p: PageRequest, embed: ListEmbeds, gate?: RawBuilder<SqlBool>) {
    let filtered = ex.selectFrom('applications').where(applicationWhere(f))
    if (gate) filtered = filtered.where(gate)
    const ref = (column: string) => sql.ref(`applications.${column}`)
    return pageAndTotal<ApplicationListRow>(
      ex,
      filtered.select((eb) => eb.fn.countAll().as('pageTotal')),
      filtered
        .selectAll()
        .select([
          embed.person(ref('applicant_id')).as('applicantJson'),
          embed.ref(ref('collection_id')).as('collectionJson'),
        ])
        .orderBy('createdAt', 'desc')
        .orderBy('id', 'desc')
        .limit(p.limit)
        .offset(offsetOf(p)),
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
