// A Kysely dialect wrapper that tells the read caches which tables this process wrote, once the
// write is durable: at COMMIT for statements in a transaction, at once for a statement on its own.
// It looks at the statement text only (builder and raw SQL alike), so no writer has to remember
// to invalidate anything.
import type { DatabaseConnection, Dialect, Driver, TransactionSettings } from 'kysely'
import { type ReadCaches, writtenTables } from './read-cache.ts'

interface ConnState {
  inTransaction: boolean
  tables: Set<string>
}

class WatchingDriver implements Driver {
  readonly #state = new WeakMap<DatabaseConnection, ConnState>()

  // Savepoints only where the wrapped driver has them: Kysely offers nested transactions by their
  // presence.
  savepoint?: Driver['savepoint']
  rollbackToSavepoint?: Driver['rollbackToSavepoint']
  releaseSavepoint?: Driver['releaseSavepoint']

  constructor(
    private readonly inner: Driver,
    private readonly caches: ReadCaches,
  ) {
    if (inner.savepoint) this.savepoint = inner.savepoint.bind(inner)
    if (inner.rollbackToSavepoint) this.rollbackToSavepoint = inner.rollbackToSavepoint.bind(inner)
    if (inner.releaseSavepoint) this.releaseSavepoint = inner.releaseSavepoint.bind(inner)
  }

  init(): Promise<void> {
    return this.inner.init()
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const conn = await this.inner.acquireConnection()
    let state = this.#state.get(conn)
    if (!state) {
      state = { inTransaction: false, tables: new Set() }
      this.#state.set(conn, state)
      const s = state
      const execute = conn.executeQuery.bind(conn)
      const caches = this.caches
      conn.executeQuery = async (compiled) => {
        const tables = writtenTables(compiled.sql)
        if (tables.length === 0) return execute(compiled)
        if (s.inTransaction) {
          for (const t of tables) s.tables.add(t)
          return execute(compiled)
        }
        try {
          return await execute(compiled)
        } finally {
          caches.written(tables)
        }
      }
    }
    return conn
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.inner.beginTransaction(conn, settings)
    const s = this.#state.get(conn)
    if (s) {
      s.inTransaction = true
      s.tables.clear()
    }
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    const s = this.#state.get(conn)
    try {
      await this.inner.commitTransaction(conn)
    } finally {
      if (s) {
        s.inTransaction = false
        if (s.tables.size) this.caches.written(s.tables)
        s.tables.clear()
      }
    }
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    const s = this.#state.get(conn)
    if (s) {
      s.inTransaction = false
      s.tables.clear()
    }
    await this.inner.rollbackTransaction(conn)
  }

  releaseConnection(conn: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(conn)
  }

  destroy(): Promise<void> {
    return this.inner.destroy()
  }
}

/** `dialect`, with every committed write reported to `caches`. */
export function watchWrites(dialect: Dialect, caches: ReadCaches): Dialect {
  return {
    createDriver: () => new WatchingDriver(dialect.createDriver(), caches),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  }
}
