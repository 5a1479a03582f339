// The database: Kysely over PostgreSQL (`DATABASE_URL`) or over an embedded PGlite, with the same
// migrations and queries. Both drivers parse values the same way: int8 → number, numeric → string
// (money is converted to bigint by the code that reads it), timestamptz → Date, jsonb → objects.
import { mkdirSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import {
  type Dialect,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresDialect,
  type QueryResult,
  type RootOperationNode,
  sql,
  type Transaction,
  type UnknownRow,
} from 'kysely'
import pg from 'pg'
import { CamelCase, snakeCaseIdentifiers } from './camel-case.ts'
import { deferBegin } from './deferred-begin.ts'
import { ensureCluster } from './embedded.ts'
import { type ChannelListener, type ListenHandlers, listenPGlite, listenPostgres } from './listen.ts'
import { PGliteDialect } from './pglite-dialect.ts'
import { ReadCaches } from './read-cache.ts'
import { RetryingKysely, type RetryStats } from './retry.ts'
import { installPgRowShapes } from './row-shapes.ts'
import type { DB } from './types.ts'
import { watchWrites } from './watch-writes.ts'

export type Db = Kysely<DB>
export type Tx = Transaction<DB>
export type Executor = Db | Tx

export interface Database {
  db: Db
  kind: 'postgres' | 'pglite'
  /** statements sent since the database was opened */
  queryCount(): number
  ping(): Promise<void>
  close(): Promise<void>
  /** LISTEN on a channel over a connection of its own (live pushes between processes) */
  listen(channel: string, handlers: ListenHandlers): Promise<ChannelListener>
  /** the in-process read caches, told of every write this process commits */
  caches: ReadCaches
  /** transactions run again after a deadlock or serialization failure (src/db/retry.ts) */
  retryStats: RetryStats
  /** the connection pool now (PostgreSQL; undefined for the embedded database, one connection) */
  pool(): PoolState | undefined
}

export interface PoolState {
  /** connections open, in use or idle */
  open: number
  idle: number
  /** callers waiting for a connection: all were in use and the pool at its size */
  waiting: number
  size: number
}

/**
 * Counts the statements answered (transaction BEGIN/COMMIT aside): the bench's queries per request.
 * Counted on the result, once per statement executed: a query builder embedded in another as a
 * subquery also passes through transformQuery, and would be counted as a statement of its own.
 */
class QueryCounter implements KyselyPlugin {
  count = 0
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.count++
    return args.result
  }
}

/** The Kysely of `dialect`: names in camel case in the code, snake case in the database. */
function kyselyOf(dialect: Dialect, counter: QueryCounter): RetryingKysely<DB> {
  const camelCase = new CamelCase()
  return new RetryingKysely<DB>({
    dialect: snakeCaseIdentifiers(dialect, camelCase),
    plugins: [counter, camelCase],
  })
}

/** How long an idle pooled connection is kept, and how long any is used before it is renewed. */
export const POOL_IDLE_MS = 600_000
export const POOL_LIFETIME_S = 1_800

export function openPostgres(url: string, poolSize: number): Database {
  installPgRowShapes()
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // A connection's first statements cost several times what they cost later (a backend starts,
    // fills its catalog caches and maps the shared buffers it reads; named statements are parsed
    // again), so an idle one is kept ten minutes rather than pg's ten seconds: a quiet service
    // would otherwise reconnect on nearly every request. Each is renewed after half an hour, and
    // idle ones do not keep a process alive that has nothing else to do.
    idleTimeoutMillis: POOL_IDLE_MS,
    maxLifetimeSeconds: POOL_LIFETIME_S,
    allowExitOnIdle: true,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === 20) return (v: string) => Number(v)
        return pg.types.getTypeParser(oid, format as 'text')
      }) as typeof pg.types.getTypeParser,
    },
  })
  // An idle client that errors (server restart) must not crash the process.
  pool.on('error', () => {})
  pool.on('connect', deferBegin)
  const counter = new QueryCounter()
  const caches = new ReadCaches()
  const dialect = watchWrites(new PostgresDialect({ pool }), caches)
  const db = kyselyOf(dialect, counter)
  return {
    db,
    caches,
    retryStats: db.retryStats,
    queryCount: () => counter.count,
    pool: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, size: poolSize }),
    kind: 'postgres',
    ping: async () => {
      await sql`select 1`.execute(db)
    },
    close: () => db.destroy(),
    listen: (channel, handlers) => listenPostgres(url, channel, handlers),
  }
}

export interface PGliteOptions {
  /**
   * directory for a durable database; in memory when omitted. When it is absent or empty, the
   * cluster is unpacked there from the machine's cluster template (src/db/embedded.ts) instead of
   * running initdb in this process.
   */
  dataDir?: string
  /** a tarball from `dumpDataDir()` to start from (tests use a migrated template) */
  loadDataDir?: Blob
  /** server settings, each passed as `-c name=value` at start (`embeddedSettings` for the service) */
  settings?: Readonly<Record<string, string>>
}

export async function openPGlite(opts: PGliteOptions = {}): Promise<Database & { client: PGlite }> {
  if (opts.dataDir) {
    if (opts.loadDataDir) mkdirSync(opts.dataDir, { recursive: true })
    else await ensureCluster(opts.dataDir)
  }
  const settings = Object.entries(opts.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`])
  const client = await PGlite.create({
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    ...(settings.length ? { startParams: [...PGlite.defaultStartParams, ...settings] } : {}),
  })
  const counter = new QueryCounter()
  const caches = new ReadCaches()
  const db = kyselyOf(watchWrites(new PGliteDialect(client), caches), counter)
  return {
    db,
    caches,
    retryStats: db.retryStats,
    queryCount: () => counter.count,
    pool: () => undefined,
    client,
    kind: 'pglite',
    ping: async () => {
      await sql`select 1`.execute(db)
    },
    close: () => db.destroy(),
    listen: (channel, handlers) => listenPGlite(client, channel, handlers),
  }
}

/** Runs `fn` in a transaction, or inside the caller's transaction when one is given. */
export function inTransaction<T>(db: Executor, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Tx)
  return (db as Db).transaction().execute(fn)
}
