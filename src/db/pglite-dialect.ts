// Kysely dialect over PGlite. PGlite is one connection, so the driver hands it out to one user
// at a time: a transaction holds it from BEGIN to COMMIT and no other query can interleave.
import type { PGlite } from '@electric-sql/pglite'
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely'

class Mutex {
  #tail: Promise<void> = Promise.resolve()
  lock(): Promise<() => void> {
    let release!: () => void
    const next = new Promise<void>((r) => {
      release = r
    })
    const prev = this.#tail
    this.#tail = prev.then(() => next)
    return prev.then(() => release)
  }
}

class PGliteConnection implements DatabaseConnection {
  constructor(readonly client: PGlite) {}
  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const res = await this.client.query<R>(compiled.sql, [...compiled.parameters])
    const affected = res.affectedRows
    return {
      rows: res.rows,
      ...(affected !== undefined && /^\s*(insert|update|delete|merge)/i.test(compiled.sql)
        ? { numAffectedRows: BigInt(affected) }
        : {}),
    }
  }
  // biome-ignore lint/correctness/useYield: streaming is not supported by PGlite
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite does not support streaming')
  }
}

class PGliteDriver implements Driver {
  readonly #mutex = new Mutex()
  readonly #releases = new WeakMap<DatabaseConnection, () => void>()
  constructor(readonly client: PGlite) {}
  async init() {}
  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.#mutex.lock()
    const conn = new PGliteConnection(this.client)
    this.#releases.set(conn, release)
    return conn
  }
  async beginTransaction(conn: DatabaseConnection) {
    await conn.executeQuery(CompiledQuery.raw('BEGIN'))
  }
  async commitTransaction(conn: DatabaseConnection) {
    await conn.executeQuery(CompiledQuery.raw('COMMIT'))
  }
  async rollbackTransaction(conn: DatabaseConnection) {
    await conn.executeQuery(CompiledQuery.raw('ROLLBACK'))
  }
  async releaseConnection(conn: DatabaseConnection) {
    this.#releases.get(conn)?.()
    this.#releases.delete(conn)
  }
  async destroy() {
    await this.client.close()
  }
}

export class PGliteDialect implements Dialect {
  constructor(readonly client: PGlite) {}
  createAdapter() {
    return new PostgresAdapter()
  }
  createDriver() {
    return new PGliteDriver(this.client)
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler()
  }
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db)
  }
}
