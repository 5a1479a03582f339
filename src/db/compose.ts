// Writes of several modules in one statement. A module that owns a table builds its own insert
// (its SQL stays in its repo) and hands it over unexecuted as a `Write`; the module making the
// statement runs each as a data-modifying WITH query in front of its own. PostgreSQL runs every
// one of them exactly once, whether or not the statement reads it, on the statement's snapshot:
// they do not see each other's rows, and they commit or roll back with the statement. Only writes
// whose outcome is decided before the statement (a row for a key made in this process, so no
// conflict) are handed over this way: no caller reads what a write answers.
import { type OperationNodeSource, type QueryCreator, type RawBuilder, sql } from 'kysely'
import type { Executor } from './index.ts'
import type { DB } from './types.ts'

/** An unexecuted insert or update of the module that owns its table. */
export interface Write {
  readonly statement: OperationNodeSource
}

/** Wraps a query builder that was not executed as a write for another module's statement. */
export const write = (statement: OperationNodeSource): Write => ({ statement })

/**
 * A query creator on `ex` whose next statement runs `writes` first, as WITH queries named
 * `write_0`, `write_1`, … (not meant to be read).
 */
export function withWrites(ex: Executor, writes: readonly Write[]): QueryCreator<DB> {
  let creator: QueryCreator<DB> = ex
  writes.forEach((w, i) => {
    creator = creator.with(`write_${i}`, () => w.statement as any) as unknown as QueryCreator<DB>
  })
  return creator
}

/**
 * The same for a statement written in SQL: `statement` with `writes` in front as WITH queries
 * (`with write_0 as (…) <statement>`), or `statement` alone without writes. A statement that
 * has WITH queries of its own puts `writesBefore(writes)` right after its `with` instead.
 */
export function sqlWithWrites<T>(writes: readonly Write[], statement: RawBuilder<T>): RawBuilder<T> {
  return writes.length ? sql<T>`with ${writeList(writes)} ${statement}` : statement
}

/** `write_0 as (…), write_1 as (…), ` (nothing without writes): the first WITH queries of a statement. */
export function writesBefore(writes: readonly Write[]): RawBuilder<unknown> {
  return writes.length ? sql`${writeList(writes)}, ` : sql``
}

function writeList(writes: readonly Write[]) {
  return sql.join(
    writes.map((w, i) => sql`${sql.raw(`write_${i}`)} as (${w.statement})`),
    sql`, `,
  )
}
