// The only SQL of live pushes: the notification itself, oversized payloads, process heartbeats
// and presence counts.
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { exists } from '../../db/reads.ts'

export const liveRepo = {
  async notify(ex: Executor, channel: string, payload: string): Promise<void> {
    await sql`select pg_notify(${channel}, ${payload})`.execute(ex)
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

  async addSocket(ex: Executor, processId: string, userId: string): Promise<void> {
    await ex
      .insertInto('livePresence')
      .values({ processId, userId, sockets: 1 })
      .onConflict((oc) =>
        oc.columns(['processId', 'userId']).doUpdateSet({ sockets: sql`live_presence.sockets + 1` }),
      )
      .execute()
  },

  /** One socket fewer: the row goes with the last one (deleted first, so that a count just
   * lowered to 1 is not taken for the last). */
  async removeSocket(ex: Executor, processId: string, userId: string): Promise<void> {
    const gone = await ex
      .deleteFrom('livePresence')
      .where('processId', '=', processId)
      .where('userId', '=', userId)
      .where('sockets', '<=', 1)
      .executeTakeFirst()
    if (gone.numDeletedRows > 0n) return
    await ex
      .updateTable('livePresence')
      .set({ sockets: sql`sockets - 1` })
      .where('processId', '=', processId)
      .where('userId', '=', userId)
      .execute()
  },

  /** The user's sockets per other process, most first. */
  socketsElsewhere(ex: Executor, processId: string, userId: string) {
    return ex
      .selectFrom('livePresence')
      .select(['processId', 'sockets'])
      .where('userId', '=', userId)
      .where('processId', '<>', processId)
      .orderBy('sockets', 'desc')
      .orderBy('processId')
      .execute()
  },

  isConnected(ex: Executor, userId: string): Promise<boolean> {
    return exists(ex.selectFrom('livePresence').select('userId').where('userId', '=', userId))
  },

  async setSocketStatus(ex: Executor, userId: string, status: 'ONLINE' | 'OFFLINE'): Promise<void> {
    await ex.updateTable('users').set({ socketStatus: status }).where('id', '=', userId).execute()
  },
}
