// The only SQL of the connection filters.
import type { Executor } from '../../db/index.ts'

const columns = ['id', 'userId', 'event', 'key', 'decider', 'value', 'createdAt', 'updatedAt'] as const

export interface FilterRowInput {
  id: string
  userId: string
  event: string
  key: string
  decider: string
  value: unknown
  now: Date
}

export const connectionFilterRepo = {
  /** Inserts a rule; false when the user already has one for this event and key. */
  async insert(ex: Executor, r: FilterRowInput): Promise<boolean> {
    const row = await ex
      .insertInto('connectionFilters')
      .values({
        id: r.id,
        userId: r.userId,
        event: r.event,
        key: r.key,
        decider: r.decider,
        value: JSON.stringify(r.value),
        createdAt: r.now,
        updatedAt: r.now,
      })
      .onConflict((oc) => oc.columns(['userId', 'event', 'key']).doNothing())
      .returning('id')
      .executeTakeFirst()
    return !!row
  },

  /** Changes the rule of this event and key; false when there is none. */
  async update(ex: Executor, r: Omit<FilterRowInput, 'id'>): Promise<boolean> {
    const res = await ex
      .updateTable('connectionFilters')
      .set({ decider: r.decider, value: JSON.stringify(r.value), updatedAt: r.now })
      .where('userId', '=', r.userId)
      .where('event', '=', r.event)
      .where('key', '=', r.key)
      .executeTakeFirst()
    return Number(res.numUpdatedRows) > 0
  },

  /** A user's rules, most recently changed first, of one event and key when given. */
  list(ex: Executor, userId: string, f: { event?: string; key?: string } = {}) {
    let q = ex.selectFrom('connectionFilters').select(columns).where('userId', '=', userId)
    if (f.event) q = q.where('event', '=', f.event)
    if (f.key) q = q.where('key', '=', f.key)
    return q.orderBy('updatedAt', 'desc').orderBy('id', 'desc').execute()
  },

  async remove(ex: Executor, userId: string, id: string): Promise<boolean> {
    const res = await ex
      .deleteFrom('connectionFilters')
      .where('id', '=', id)
      .where('userId', '=', userId)
      .executeTakeFirst()
    return Number(res.numDeletedRows) > 0
  },
}
