// Writes of several modules in one statement. A module that owns a table builds its own insert
// (its SQL stays in its repo) and hands it over unexecuted as a `Write`; the module making the
// statement runs each as a data-modifying WITH query in front of its own. PostgreSQL runs every
// one of them exactly once, whether or not the statement reads it, on the statement's snapshot:
// they do not see each other's rows, and they commit or roll back with the statement. Only writes
// whose outcome is decided before the statement (a row for a key made in this process, so no
// conflict) are handed over this way: no caller reads what a write answers.
import type { OperationNodeSource, QueryCreator } from 'kysely'
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
