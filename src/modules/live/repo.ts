// The only SQL of live pushes: the notification itself, oversized payloads, process heartbeats
// and presence counts.
import { sql } from 'kysely'
import { notifyAtCommit } from '../../db/ahead.ts'
import type { Write } from '../../db/compose.ts'
import type { Executor } from '../../db/index.ts'
import { exists } from '../../db/reads.ts'

export const liveRepo = {
  /** The notification, and `writes` of other modules made by the same statement. */
  notify(ex: Executor, channel: string, payload: string, writes: readonly Write[] = []): Promise<void> {
    return notifyAtCommit(ex, channel, payload, writes)
  },

  async storeMessage(ex: Executor, id: string, payload: string): Promise<void> {
    await ex.insertInto('liveMessages').values({ id, payload }).execute()
  },

  async loadMessage(ex: Executor, id: string): Promise<unknown | undefined> {
    const row = await ex.selectFrom('liveMessages').select('payload').where('id', '=', id).executeTakeFirst()
    return row?.payload
  },

  async pruneMessages(ex: Executor, olderThanMs: number): Promise<void> {
    await ex
      .deleteFrom('liveMessages')
      .where('createdAt', '<', sql<Date>`now() - make_interval(secs => ${olderThanMs / 1000})`)
      .execute()
  },

  /** The database's clock, not the process's: processes compare heartbeats with one clock. */
  async heartbeat(ex: Executor, processId: string): Promise<void> {
    await ex
      .insertInto('liveProcesses')
      .values({ id: processId, heartbeatAt: sql<Date>`now()` })
      .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeatAt: sql<Date>`now()` }))
      .execute()
  },

  processKnown(ex: Executor, processId: string): Promise<boolean> {
    return exists(ex.selectFrom('liveProcesses').select('id').where('id', '=', processId))
  },

  async setSockets(ex: Executor, processId: string, userId: string, sockets: number): Promise<void> {
    await ex
      .insertInto('livePresence')
      .values({ processId, userId, sockets })
      .onConflict((oc) => oc.columns(['processId', 'userId']).doUpdateSet({ sockets }))
      .execute()
  },

  /** Removes processes silent for `staleMs` (and, by cascade, their presence); answers the users they held. */
  async removeStaleProcesses(ex: Executor, staleMs: number): Promise<string[]> {
    const cutoff = sql<Date>`now() - make_interval(secs => ${staleMs / 1000})`
    const held = await ex
      .selectFrom('livePresence')
      .innerJoin('liveProcesses', 'liveProcesses.id', 'livePresence.processId')
      .select('livePresence.userId')
      .where('liveProcesses.heartbeatAt', '<', cutoff)
      .execute()
    await ex.deleteFrom('liveProcesses').where('heartbeatAt', '<', cutoff).execute()
    return [...new Set(held.map((r) => r.userId))]
  },

  async removeProcess(ex: Executor, processId: string): Promise<string[]> {
    const held = await ex
      .selectFrom('livePresence')
      .select('userId')
      .where('processId', '=', processId)
      .execute()
    await ex.deleteFrom('liveProcesses').where('id', '=', processId).execute()
    return held.map((r) => r.userId)
  },

  /** Locks the user's row so that presence changes of one user are serialised across processes. */
  lockUser(ex: Executor, userId: string): Promise<boolean> {
    return exists(ex.selectFrom('users').select('id').where('id', '=', userId).forUpdate())
  },

  /** Locks the rows of many users, in id order (so two processes batching at once cannot
   * deadlock on each other); answers the ids that exist. */
  async lockUsers(ex: Executor, userIds: string[]): Promise<string[]> {
    const rows = await ex
      .selectFrom('users')
      .select('id')
      .where('id', 'in', userIds)
      .orderBy('id')
      .forUpdate()
      .execute()
    return rows.map((r) => r.id)
  },

  /** Adds `n` sockets of this process to each user's count (one statement for the batch). */
  async addSockets(ex: Executor, processId: string, counts: Array<{ userId: string; n: number }>) {
    if (counts.length === 0) return
    await sql`
      insert into live_presence (process_id, user_id, sockets)
      select ${processId}, d.user_id, d.n
      from unnest(${counts.map((c) => c.userId)}::char(24)[], ${counts.map((c) => c.n)}::int[]) as d(user_id, n)
      on conflict (process_id, user_id) do update set sockets = live_presence.sockets + excluded.sockets`.execute(
      ex,
    )
  },

  /** Removes `n` sockets of this process from each user's count: a row that would reach 0 goes
   * (deleted first: the count never goes below 1). */
  async removeSockets(ex: Executor, processId: string, counts: Array<{ userId: string; n: number }>) {
    if (counts.length === 0) return
    const users = counts.map((c) => c.userId)
    const ns = counts.map((c) => c.n)
    await sql`
      delete from live_presence p
      using unnest(${users}::char(24)[], ${ns}::int[]) as d(user_id, n)
      where p.process_id = ${processId} and p.user_id = d.user_id and p.sockets <= d.n`.execute(ex)
    await sql`
      update live_presence p set sockets = p.sockets - d.n
      from unnest(${users}::char(24)[], ${ns}::int[]) as d(user_id, n)
      where p.process_id = ${processId} and p.user_id = d.user_id`.execute(ex)
  },

  /** Each user's sockets per other process, most first. */
  socketsElsewhereOf(ex: Executor, processId: string, userIds: string[]) {
    return ex
      .selectFrom('livePresence')
      .select(['userId', 'processId', 'sockets'])
      .where('userId', 'in', userIds)
      .where('processId', '<>', processId)
      .orderBy('userId')
      .orderBy('sockets', 'desc')
      .orderBy('processId')
      .execute()
  },

  /** ONLINE for users who hold a socket on some process, OFFLINE for the others (only rows that change). */
  async syncSocketStatus(ex: Executor, userIds: string[]): Promise<void> {
    if (userIds.length === 0) return
    await syncSocketStatusSql(userIds).execute(ex)
  },

  async setSocketStatus(ex: Executor, userId: string, status: 'ONLINE' | 'OFFLINE'): Promise<void> {
    await ex.updateTable('users').set({ socketStatus: status }).where('id', '=', userId).execute()
  },
}

/**
 * The statement of syncSocketStatus. The ids are char(24), as `users.id` and
 * `live_presence.user_id` are: compared as text, neither primary key could serve the join, and each
 * presence write would read the whole users table.
 */
export function syncSocketStatusSql(userIds: string[]) {
  return sql`
    update users u set socket_status = s.status
    from (
      select t.id, case when exists (select 1 from live_presence p where p.user_id = t.id)
                   then 'ONLINE' else 'OFFLINE' end as status
      from unnest(${userIds}::char(24)[]) as t(id)
    ) s
    where u.id = s.id and u.socket_status <> s.status`
}
