// The SQL of tags: tags found or created by key, lookups, and entry counts.
import { sql } from 'kysely'
import { sendAhead, writeAhead } from '../../db/ahead.ts'
import { sqlWithWrites, type Write } from '../../db/compose.ts'
import type { Executor } from '../../db/index.ts'
import { registerWritingFunction } from '../../db/read-cache.ts'
import type { TagsTable } from '../../db/types.ts'

export type TagRow = {
  [K in keyof TagsTable]: TagsTable[K] extends import('kysely').ColumnType<infer S, any, any>
    ? S
    : TagsTable[K]
}

// Its entry counts show in the Tag objects the profile and collection caches keep.
registerWritingFunction('tags_add_entries', ['tags'])

export const tagsRepo = {
  /**
   * Finds or creates the tags of `rows` in one statement, answering every tag of `rows` that
   * exists: new keys are inserted in the given order (existing keys are left as they are), each
   * new tag under the seeded parents of `parentKeys` that exist (in that order). A tag another
   * transaction committed after the statement began is not seen by it; the caller reads those
   * again (`byKeys`). Only keys missing from the statement's snapshot are offered to the insert:
   * an existing key's conflict check would wait for every transaction that is changing its row
   * (the entry counts of `addEntries`, held until that transaction ends), which put every save of a
   * popular tag in one queue.
   */
  async ensure(
    ex: Executor,
    rows: Array<{ id: string; name: string; key: string; color: string; parentKeys: string[] }>,
  ): Promise<TagRow[]> {
    const input = JSON.stringify(rows.map((r, n) => ({ ...r, n })))
    const res = await sql<TagRow>`
      with w as (
        select * from jsonb_to_recordset(${input}::jsonb)
          as x(id text, name text, key text, color text, "parentKeys" text[], n int)
      ),
      ins as (
        insert into tags (id, name, key, color, categories, type)
        select w.id, w.name, w.key, w.color,
          array(select p.id from tags p where p.is_parent and p.key = any(w."parentKeys")
            order by array_position(w."parentKeys", p.key)),
          'tags'
        from w
        where not exists (select 1 from tags e where e.key = w.key)
        order by w.n
        on conflict (key) do nothing
        returning *
      )
      select * from ins
      union all
      select t.* from tags t
      where t.key in (select key from w) and not exists (select 1 from ins where ins.key = t.key)`.execute(ex)
    return res.rows
  },

  byKeys(ex: Executor, keys: string[]) {
    return ex.selectFrom('tags').selectAll().where('key', 'in', keys).execute()
  },

  byIds(ex: Executor, ids: string[]) {
    return ex.selectFrom('tags').selectAll().where('id', 'in', ids).execute()
  },

  /**
   * Moves the entry count of each tag by its delta (never below 0), in one statement: the function
   * `tags_add_entries` (migration 0062) updates the rows one by one in id order, so two
   * transactions saving overlapping tag sets queue on the first tag they share instead of each
   * holding one the other waits for. An UPDATE of a non-key column takes the NO KEY UPDATE lock,
   * which never waits on the key-share locks that inserts referencing the tags (user_tags) take in
   * their own order. The statement makes other modules' `writes` too (src/db/compose.ts).
   */
  async addEntries(ex: Executor, deltas: ReadonlyMap<string, number>, writes: readonly Write[] = []) {
    const ids = [...deltas.keys()].filter((id) => deltas.get(id) !== 0)
    if (ids.length === 0) return writeAhead(ex, writes)
    const moves = ids.map((id) => deltas.get(id)!)
    // Sent ahead (src/db/ahead.ts): it travels with the transaction's next statement.
    await sendAhead(
      ex,
      sqlWithWrites(writes, sql`select tags_add_entries(${ids}::char(24)[], ${moves}::int[], ${new Date()})`),
    )
  },
}
