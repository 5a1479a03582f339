// The only SQL of the feeds: events seen as feed entries, and each viewer's dismissals.
import { type SqlBool, sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { countedPage, type PageRequest } from '../../db/reads.ts'

export interface FeedFilter {
  viewerId: string
  eventTypes: string[]
  /** posted entries of this feed type too (their type is in their data) */
  postedType?: string
  /** only entries that concern the viewer (actor or audience); otherwise also every public one */
  own: boolean
  isPublic?: boolean
  /** entries of this user (actor or audience), as far as the viewer may see them */
  ownerId?: string
}

const columns = [
  'e.id',
  'e.type',
  'e.actorId',
  'e.audience',
  'e.collectionId',
  'e.isPublic',
  'e.data',
  'e.createdAt',
] as const

function where(f: FeedFilter) {
  const mine = sql<SqlBool>`(e.actor_id = ${f.viewerId} or ${f.viewerId} = any(e.audience))`
  const byType = f.eventTypes.length
    ? sql<SqlBool>`e.type in (${sql.join(f.eventTypes)})`
    : sql<SqlBool>`false`
  const conds = [
    f.postedType
      ? sql<SqlBool>`(${byType} or (e.type = 'feed.posted' and e.data->>'feedType' = ${f.postedType}))`
      : byType,
    f.own ? mine : sql<SqlBool>`(e.is_public or ${mine})`,
    sql<SqlBool>`not exists (select 1 from feed_dismissals d where d.user_id = ${f.viewerId} and d.event_id = e.id)`,
    sql<SqlBool>`not exists (select 1 from feed_cursors c where c.user_id = ${f.viewerId} and e.created_at <= c.dismissed_before)`,
  ]
  if (f.isPublic !== undefined) conds.push(sql<SqlBool>`e.is_public = ${f.isPublic}`)
  if (f.ownerId) conds.push(sql<SqlBool>`(e.actor_id = ${f.ownerId} or ${f.ownerId} = any(e.audience))`)
  return sql<SqlBool>`${sql.join(conds, sql` and `)}`
}

export type FeedRow = Awaited<ReturnType<typeof feedRepo.page>>['rows'][number]

export const feedRepo = {
  /** One page of the viewer's entries, newest first, with the number of all of them. */
  page(ex: Executor, f: FeedFilter, p: PageRequest) {
    return countedPage(
      ex.selectFrom('events as e').where(where(f)),
      (q) => q.select(columns),
      { by: ['e.createdAt', 'e.id'], first: 'newest' },
      p,
      'in-page',
    )
  },

  /** One entry the viewer may see (dismissed ones included), or undefined. */
  get(ex: Executor, viewerId: string, id: string, eventTypes: string[]) {
    return ex
      .selectFrom('events as e')
      .select(columns)
      .where('e.id', '=', id)
      .where(sql<SqlBool>`e.type in (${sql.join(eventTypes)})`)
      .where(sql<SqlBool>`(e.is_public or e.actor_id = ${viewerId} or ${viewerId} = any(e.audience))`)
      .executeTakeFirst()
  },

  /** The entries of `ids` the viewer may see, each with whether the viewer dismissed it. */
  getMany(ex: Executor, viewerId: string, ids: string[], eventTypes: string[]) {
    if (ids.length === 0) return Promise.resolve([])
    return ex
      .selectFrom('events as e')
      .select(columns)
      .select(
        sql<boolean>`(exists (select 1 from feed_dismissals d where d.user_id = ${viewerId} and d.event_id = e.id)
          or exists (select 1 from feed_cursors c where c.user_id = ${viewerId} and e.created_at <= c.dismissed_before))`.as(
          'closed',
        ),
      )
      .where('e.id', 'in', ids)
      .where(sql<SqlBool>`e.type in (${sql.join(eventTypes)})`)
      .where(sql<SqlBool>`(e.is_public or e.actor_id = ${viewerId} or ${viewerId} = any(e.audience))`)
      .execute()
  },

  async dismissed(ex: Executor, viewerId: string, id: string, createdAt: Date) {
    const one = await ex
      .selectFrom('feedDismissals')
      .select('eventId')
      .where('userId', '=', viewerId)
      .where('eventId', '=', id)
      .executeTakeFirst()
    if (one) return true
    const all = await ex
      .selectFrom('feedCursors')
      .select('dismissedBefore')
      .where('userId', '=', viewerId)
      .executeTakeFirst()
    return !!all && createdAt <= all.dismissedBefore
  },

  async dismiss(ex: Executor, viewerId: string, id: string, at: Date) {
    await ex
      .insertInto('feedDismissals')
      .values({ userId: viewerId, eventId: id, createdAt: at })
      .onConflict((oc) => oc.columns(['userId', 'eventId']).doNothing())
      .execute()
  },

  async dismissAll(ex: Executor, viewerId: string, at: Date) {
    await ex
      .insertInto('feedCursors')
      .values({ userId: viewerId, dismissedBefore: at })
      .onConflict((oc) => oc.column('userId').doUpdateSet({ dismissedBefore: at }))
      .execute()
  },
}
