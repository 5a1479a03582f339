// SQL for the files table.
import { type RawBuilder, type Selectable, sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { countedPage } from '../../db/reads.ts'
import type { FilesTable } from '../../db/tables/files.ts'

export type FileRow = Selectable<FilesTable>

export interface ListFilter {
  uploadedBy: string
  /** MIME type prefix */
  type?: string
  visibility?: 'public' | 'private'
  page: number
  limit: number
}

/** What a file summary is made from, as the JSON that summarySourcesJson gives. */
export type FileSummarySource = Pick<FileRow, 'id' | 'name' | 'type' | 'size'>

/**
 * For a read of another module that embeds file summaries in the same query: the live files whose
 * ids `ids` (a text[] expression of that query) holds, as a JSON array of their summary sources.
 */
export function summarySourcesJson(ids: RawBuilder<unknown>): RawBuilder<FileSummarySource[]> {
  return sql<FileSummarySource[]>`(select coalesce(jsonb_agg(jsonb_build_object(
      'id', f.id, 'name', f.name, 'type', f.type, 'size', f.size)), '[]'::jsonb)
    from files f where f.id = any(${ids}::bpchar[]) and f.status)`
}

export const filesRepo = {
  async insert(
    ex: Executor,
    row: Omit<FileRow, 'status' | 'deletedAt' | 'version' | 'meta'> & { meta: FileRow['meta'] },
  ): Promise<FileRow> {
    return ex
      .insertInto('files')
      .values({ ...row, meta: JSON.stringify(row.meta) })
      .returningAll()
      .executeTakeFirstOrThrow()
  },

  /** A live (not deleted) file. */
  findLive(ex: Executor, id: string): Promise<FileRow | undefined> {
    return ex
      .selectFrom('files')
      .selectAll()
      .where('id', '=', id)
      .where('status', '=', true)
      .executeTakeFirst()
  },

  findLiveByName(ex: Executor, name: string): Promise<FileRow | undefined> {
    return ex
      .selectFrom('files')
      .selectAll()
      .where('name', '=', name)
      .where('status', '=', true)
      .executeTakeFirst()
  },

  findLiveMany(ex: Executor, ids: readonly string[]): Promise<FileRow[]> {
    if (ids.length === 0) return Promise.resolve([])
    return ex
      .selectFrom('files')
      .selectAll()
      .where('id', 'in', [...ids])
      .where('status', '=', true)
      .execute()
  },

  async list(ex: Executor, f: ListFilter): Promise<{ rows: FileRow[]; count: number }> {
    let q = ex.selectFrom('files').where('uploadedBy', '=', f.uploadedBy).where('status', '=', true)
    // The filter value is pattern-checked to MIME characters, so it holds no LIKE wildcard.
    if (f.type) q = q.where('type', 'like', `${f.type}%`)
    if (f.visibility) q = q.where('visibility', '=', f.visibility)
    const { total, rows } = await countedPage(
      q,
      (q) => q.selectAll(),
      { by: ['createdAt', 'id'], first: 'newest' },
      f,
      'in-page',
    )
    return { rows, count: total }
  },

  /** Soft-deletes a live file of `uploadedBy`; returns it, or undefined when there was none. */
  markDeleted(ex: Executor, id: string, uploadedBy: string, now: Date): Promise<FileRow | undefined> {
    return ex
      .updateTable('files')
      .set((eb) => ({ status: false, deletedAt: now, updatedAt: now, version: eb('version', '+', 1) }))
      .where('id', '=', id)
      .where('uploadedBy', '=', uploadedBy)
      .where('status', '=', true)
      .returningAll()
      .executeTakeFirst()
  },
}
