// The only SQL on the events table.
import { sql } from 'kysely'
import { type Write, write } from '../../db/compose.ts'
import type { Executor } from '../../db/index.ts'

export interface EventRow {
  id: string
  type: string
  actorId: string | null
  audience: string[]
  collectionId: string | null
  isPublic: boolean
  data: Record<string, unknown>
  createdAt: Date
}

export const eventColumns = [
  'id',
  'type',
  'actorId',
  'audience',
  'collectionId',
  'isPublic',
  'data',
  'createdAt',
] as const

function insertOf(ex: Executor, row: EventRow & { key: string | null }) {
  return ex.insertInto('events').values({
    id: row.id,
    type: row.type,
    key: row.key,
    actorId: row.actorId,
    audience: row.audience.length
      ? sql<string[]>`array[${sql.join(row.audience)}]::text[]`
      : sql<string[]>`'{}'::text[]`,
    collectionId: row.collectionId,
    isPublic: row.isPublic,
    data: JSON.stringify(row.data),
    createdAt: row.createdAt,
  })
}

export const eventRepo = {
  /** Inserts one event with its key; with the key already used, inserts nothing and returns false. */
  async insert(ex: Executor, row: EventRow & { key: string }): Promise<boolean> {
    const inserted = await insertOf(ex, row)
      .onConflict((oc) => oc.column('key').doNothing())
      .returning('id')
      .executeTakeFirst()
    return inserted !== undefined
  },

  /**
   * The insert of an event without a key, which nothing can conflict with: made by another
   * statement (src/db/compose.ts), or sent ahead (src/db/ahead.ts).
   */
  insertWrite(ex: Executor, row: EventRow): Write {
    return write(insertOf(ex, { ...row, key: null }))
  },

  get(ex: Executor, id: string) {
    return ex.selectFrom('events').select(eventColumns).where('id', '=', id).executeTakeFirst()
  },
}
