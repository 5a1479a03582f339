// Statements sent ahead: a write whose answer no caller reads, made inside a transaction, waits
// for the transaction's next statement (or its COMMIT) and travels with it, in the same round trip
// (src/db/deferred-begin.ts, on PostgreSQL's pool connections). It runs in order, before that
// statement, so the transaction sees it; when it fails, the next statement answers its error and
// the transaction rolls back. Outside a transaction, and on the embedded database, it runs at once.
import { CompiledQuery, sql } from 'kysely'
import { sqlWithWrites, type Write } from './compose.ts'
import type { Executor } from './index.ts'

/** The mark the pool connection knows a statement sent ahead by. */
export const AHEAD = '/* ahead */ '

/** A query builder, or SQL built with `sql` (compiled on `ex`). */
interface Statement {
  compile(ex: Executor): CompiledQuery
}

/** Runs `query` as a statement sent ahead: it answers no rows, whatever the statement returns. */
export async function sendAhead(ex: Executor, query: Statement): Promise<void> {
  const compiled = query.compile(ex)
  await ex.executeQuery(CompiledQuery.raw(AHEAD + compiled.sql, [...compiled.parameters]))
}

/**
 * A NOTIFY delivered at the commit of `ex`'s transaction (at once without one), sent ahead; with
 * `writes` of other modules (src/db/compose.ts) made by the same statement.
 */
export function notifyAtCommit(
  ex: Executor,
  channel: string,
  payload: string,
  writes: readonly Write[] = [],
): Promise<void> {
  return sendAhead(ex, sqlWithWrites(writes, sql`select pg_notify(${channel}, ${payload})`))
}

/** Other modules' `writes` (src/db/compose.ts) as one statement of their own, sent ahead. */
export async function writeAhead(ex: Executor, writes: readonly Write[]): Promise<void> {
  if (writes.length) await sendAhead(ex, sqlWithWrites(writes, sql`select 1`))
}
