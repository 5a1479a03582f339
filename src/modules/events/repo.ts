// The only SQL on the events table.
import { sql } from 'kysely'
import { sendAhead } from '../../db/ahead.ts'
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

export const eventRepo = {
  /**
   * Inserts one event; with a key already used, inserts nothing and returns false. An event
   * without a key cannot conflict: its insert is sent ahead (src/db/ahead.ts) and travels with the
   * transaction's next statement.
   */
  async insert(ex: Executor, row: EventRow & { key: string | null }): Promise<boolean> {
    const insert = ex.insertInto('events').values({
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
    if (row.key === null) {
      await sendAhead(ex, insert)
      return true
    }
    const inserted = await insert
      .onConflict((oc) => oc.column('key').doNothing())
      .returning('id')
      .executeTakeFirst()
    return inserted !== undefined
  },

  get(ex: Executor, id: string) {
    return ex.selectFrom('events').select(eventColumns).where('id', '=', id).executeTakeFirst()
  },
}
