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

  /** Moves the entry count of each tag by `by` (never below 0). */
  async addEntries(ex: Executor, ids: string[], by: 1 | -1): Promise<void> {
    await ex
      .updateTable('tags')
      .set({
        entryCount: by > 0 ? sql`entry_count + 1` : sql`greatest(entry_count - 1, 0)`,
        updatedAt: new Date(),
      })
      .where('id', 'in', ids)
      .execute()
  },
}
