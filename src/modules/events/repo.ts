// The only SQL on the events table.
import { sql } from 'kysely'
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
  /** Inserts one event; with a key already used, inserts nothing and returns false. */
  async insert(ex: Executor, row: EventRow & { key: string | null }): Promise<boolean> {
    const inserted = await ex
      .insertInto('events')
      .values({
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
      .onConflict((oc) => oc.column('key').doNothing())
      .returning('id')
      .executeTakeFirst()
    return inserted !== undefined
  },

  get(ex: Executor, id: string) {
    return ex.selectFrom('events').select(eventColumns).where('id', '=', id).executeTakeFirst()
  },
}
