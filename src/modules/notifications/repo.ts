// The only SQL on notifications, their mail digests and e-mail preferences.
import { sql } from 'kysely'
import { writeAhead } from '../../db/ahead.ts'
import { type Write, writesBefore } from '../../db/compose.ts'
import type { Executor } from '../../db/index.ts'
import type { PageRequest } from '../../db/reads.ts'
import { type UserSummaryJson, userSummaryJson } from '../account/module.ts'

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

/** What an event's notice writes for each person it concerns (see record). */
export interface EventNotice {
  eventId: string
  type: string
  title: string
  description: string
  actorId: string | null
  ref: string
  createdAt: Date
  /** each person's notification: its id and its owner */
  rows: { id: string; userId: string }[]
  /** the types mailed to someone without settings of their own */
  defaultEmailTypes: readonly string[]
}

export const notificationRepo = {
  /**
   * The notifications of one event in one statement: for each person, whether they want its type
   * by mail (their settings, else the defaults), the notification written (one per event and
   * person however often it is called), and the digest latch raised for those written that want
   * mail (as raiseDigest: `raised` is true for the one call that raised it). Answers the rows
   * written with their owner's and actor's summaries (the account module's SQL). The statement
   * makes other modules' `writes` too (src/db/compose.ts).
   */
  async record(ex: Executor, n: EventNotice, at: Date, writes: readonly Write[] = []) {
    if (n.rows.length === 0) {
      await writeAhead(ex, writes)
      return []
    }
    const defaults = n.defaultEmailTypes.length
      ? sql`array[${sql.join(n.defaultEmailTypes.map((t) => sql`${t}::text`))}]`
      : sql`'{}'::text[]`
    const { rows } = await sql<
      NotificationRow & {
        emailWanted: boolean
        owner: UserSummaryJson | null
        actor: UserSummaryJson | null
        raised: boolean
      }
    >`with ${writesBefore(writes)}wanted as (
        select r.id, r.user_id, ${n.type}::text = any(coalesce(s.email_types, ${defaults})) as email_wanted, r.n
        from (values ${sql.join(n.rows.map((r, i) => sql`(${r.id}::text, ${r.userId}::text, ${i}::int)`))}) as r(id, user_id, n)
        left join notification_settings s on s.user_id = r.user_id
      ), written as (
        insert into notifications (id, user_id, event_id, type, title, description, actor_id, ref, email_wanted, created_at)
        select w.id, w.user_id, ${n.eventId}::text, ${n.type}::text, ${n.title}::text, ${n.description}::text,
          ${n.actorId}::text, ${n.ref}::text, w.email_wanted, ${n.createdAt}::timestamptz
        from wanted w order by w.n
        on conflict (event_id, user_id) do nothing
        returning id, user_id, type, title, description, actor_id, ref, read_at, created_at, email_wanted
      ), raised as (
        insert into notification_mailboxes (user_id, pending, updated_at)
        select user_id, true, ${at}::timestamptz from written where email_wanted
        on conflict (user_id) do update set pending = true, updated_at = excluded.updated_at
          where notification_mailboxes.pending = false
        returning user_id
      )
      select w.*, ${userSummaryJson(sql`w.user_id`)} as owner, ${userSummaryJson(sql`w.actor_id`)} as actor,
        exists (select 1 from raised x where x.user_id = w.user_id) as raised
      from written w join wanted o on o.id = w.id
      order by o.n`.execute(ex)
    return rows
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
