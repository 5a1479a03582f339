// The only SQL on notifications, their mail digests and e-mail preferences.
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import type { PageRequest } from '../../db/reads.ts'
import { userSummaryJson } from '../account/module.ts'

export interface NewNotification {
  id: string
  userId: string
  eventId: string
  type: string
  title: string
  description: string
  actorId: string | null
  ref: string
  emailWanted: boolean
  createdAt: Date
}

export interface ListFilter {
  userId: string
  read?: boolean
  type?: string
}

const columns = [
  'id',
  'userId',
  'type',
  'title',
  'description',
  'actorId',
  'ref',
  'readAt',
  'createdAt',
] as const

export type NotificationRow = Awaited<ReturnType<typeof notificationRepo.get>> & {}

export const notificationRepo = {
  /** Inserts the notifications of one event; one per (event, user) however often it is called. */
  async insert(ex: Executor, rows: NewNotification[]) {
    if (rows.length === 0) return []
    return ex
      .insertInto('notifications')
      .values(rows)
      .onConflict((oc) => oc.columns(['eventId', 'userId']).doNothing())
      .returning(columns)
      .execute()
  },

  get(ex: Executor, userId: string, id: string) {
    return ex
      .selectFrom('notifications')
      .select(columns)
      .where('id', '=', id)
      .where('userId', '=', userId)
      .executeTakeFirst()
  },

  async markRead(ex: Executor, userId: string, at: Date, id?: string) {
    let q = ex
      .updateTable('notifications')
      .set({ readAt: at })
      .where('userId', '=', userId)
      .where('readAt', 'is', null)
    if (id) q = q.where('id', '=', id)
    const res = await q.executeTakeFirst()
    return Number(res.numUpdatedRows)
  },

  /**
   * One page of the user's notifications, newest first, in one statement: each row with the
   * summaries of its owner and actor (the account module's SQL), the number of all that match and
   * of the unread ones (each counted once for the statement, beside the page's index walk).
   */
  pageWithUsers(ex: Executor, f: ListFilter, p: PageRequest) {
    const matching = (alias: 'notifications' | 'm') => {
      let q = ex.selectFrom(`notifications as ${alias}` as 'notifications').where('userId', '=', f.userId)
      if (f.read !== undefined) q = q.where('readAt', f.read ? 'is not' : 'is', null)
      if (f.type) q = q.where('type', '=', f.type)
      return q
    }
    const total = matching('m').select((eb) => eb.fn.countAll<string | number>().as('n'))
    return matching('notifications')
      .select(columns)
      .select([
        sql<string | number>`(${total})`.as('total'),
        sql<number>`(select count(*)::int from notifications u
          where u.user_id = ${f.userId} and u.read_at is null)`.as('unread'),
        userSummaryJson(sql.ref('notifications.user_id')).as('owner'),
        userSummaryJson(sql.ref('notifications.actor_id')).as('actor'),
      ])
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(p.limit)
      .offset((p.page - 1) * p.limit)
      .execute()
  },

  /** The number of the user's notifications that match, and of the unread ones, in one statement. */
  async totals(ex: Executor, f: ListFilter): Promise<{ total: number; unread: number }> {
    let q = ex.selectFrom('notifications').where('userId', '=', f.userId)
    if (f.read !== undefined) q = q.where('readAt', f.read ? 'is not' : 'is', null)
    if (f.type) q = q.where('type', '=', f.type)
    const row = await q
      .select((eb) => [
        eb.fn.countAll<string | number>().as('total'),
        sql<number>`(select count(*)::int from notifications u
          where u.user_id = ${f.userId} and u.read_at is null)`.as('unread'),
      ])
      .executeTakeFirstOrThrow()
    return { total: Number(row.total), unread: row.unread }
  },

  /** Summaries of users (owner and actor of notifications), by id. */
  users(ex: Executor, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([])
    return ex
      .selectFrom('users')
      .select(['id', 'firstName', 'lastName', 'type', 'score', 'profile', 'email', 'deletedAt'])
      .where('id', 'in', ids)
      .execute()
  },

  async emailTypes(ex: Executor, userId: string): Promise<string[] | undefined> {
    const row = await ex
      .selectFrom('notificationSettings')
      .select('emailTypes')
      .where('userId', '=', userId)
      .executeTakeFirst()
    return row?.emailTypes
  },

  async setEmailTypes(ex: Executor, userId: string, types: string[], at: Date) {
    const list = types.length ? sql<string[]>`array[${sql.join(types)}]::text[]` : sql<string[]>`'{}'::text[]`
    await ex
      .insertInto('notificationSettings')
      .values({ userId, emailTypes: list as unknown as string[], updatedAt: at })
      .onConflict((oc) =>
        oc.column('userId').doUpdateSet({ emailTypes: list as unknown as string[], updatedAt: at }),
      )
      .execute()
  },

  /**
   * Raises the user's digest latch; true when this call raised it (the caller then enqueues the
   * digest). Concurrent callers queue on the row, so exactly one of them sees it down.
   */
  async raiseDigest(ex: Executor, userId: string, at: Date): Promise<boolean> {
    await ex
      .insertInto('notificationMailboxes')
      .values({ userId, pending: false, updatedAt: at })
      .onConflict((oc) => oc.column('userId').doNothing())
      .execute()
    const raised = await ex
      .updateTable('notificationMailboxes')
      .set({ pending: true, updatedAt: at })
      .where('userId', '=', userId)
      .where('pending', '=', false)
      .returning('userId')
      .executeTakeFirst()
    return raised !== undefined
  },

  /** Locks the latch for the digest run (waits for a transaction adding a notification). */
  async lockDigest(ex: Executor, userId: string) {
    return ex
      .selectFrom('notificationMailboxes')
      .select('pending')
      .where('userId', '=', userId)
      .forUpdate()
      .executeTakeFirst()
  },

  async lowerDigest(ex: Executor, userId: string, at: Date) {
    await ex
      .updateTable('notificationMailboxes')
      .set({ pending: false, updatedAt: at })
      .where('userId', '=', userId)
      .execute()
  },

  unsent(ex: Executor, userId: string) {
    return ex
      .selectFrom('notifications')
      .select(['id', 'title', 'description', 'createdAt'])
      .where('userId', '=', userId)
      .where('emailWanted', '=', true)
      .where('emailedAt', 'is', null)
      .orderBy('createdAt')
      .orderBy('id')
      .execute()
  },

  async markEmailed(ex: Executor, ids: string[], at: Date) {
    if (ids.length === 0) return
    await ex.updateTable('notifications').set({ emailedAt: at }).where('id', 'in', ids).execute()
  },
}
