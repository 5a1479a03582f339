// The SQL of tags: the parents, new tags inserted once by key, lookups, and entry counts.
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'

export const tagsRepo = {
  parents(ex: Executor) {
    return ex.selectFrom('tags').select(['id', 'key']).where('isParent', '=', true).execute()
  },

  /** Inserts the rows whose key is new (in the given order); existing keys are left as they are. */
  async insertMissing(
    ex: Executor,
    rows: Array<{ id: string; name: string; key: string; color: string; categories: string[]; type: string }>,
  ): Promise<void> {
    await ex
      .insertInto('tags')
      .values(rows)
      .onConflict((oc) => oc.column('key').doNothing())
      .execute()
  },

  byKeys(ex: Executor, keys: string[]) {
    return ex.selectFrom('tags').selectAll().where('key', 'in', keys).execute()
  },

  byIds(ex: Executor, ids: string[]) {
    return ex.selectFrom('tags').selectAll().where('id', 'in', ids).execute()
  },

  /**
   * Moves the entry count of each tag by its delta (never below 0), in one statement that locks
   * the rows in id order first: two transactions saving overlapping tag sets queue on the first
   * tag they share instead of each holding one the other waits for. The lock is the one an UPDATE
   * of a non-key column takes (NO KEY UPDATE), so it never waits on the key-share locks that
   * inserts referencing the tags (user_tags) take in their own order.
   */
  async addEntries(ex: Executor, deltas: ReadonlyMap<string, number>): Promise<void> {
    const ids = [...deltas.keys()].filter((id) => deltas.get(id) !== 0)
    if (ids.length === 0) return
    const moves = ids.map((id) => sql`(${id}::text, ${deltas.get(id)}::int)`)
    await sql`
      update tags set entry_count = greatest(tags.entry_count + m.delta, 0), updated_at = ${new Date()}
      from (select id from tags where id in (${sql.join(ids)}) order by id for no key update) as locked,
        (values ${sql.join(moves)}) as m(id, delta)
      where tags.id = locked.id and m.id = locked.id`.execute(ex)
  },
}
