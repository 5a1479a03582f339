// A new, empty PostgreSQL database on the server the suite uses (`postgresUrl`, given by the
// global set-up), under a random name starting with `prefix`; `drop` removes it, whoever is still
// connected. `socketUrls` names the same database through the server's Unix socket, in both forms
// an operator may write: the socket directory as the URL's host (percent-encoded), or as `?host=`.
// `countingPool` counts the round trips and parses of a pool connection set up as the service's.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'
import { deferBegin } from '../../src/db/deferred-begin.ts'

/** The rows `query` answers on a connection of its own to `url`. */
async function queryOn<T>(url: string, query: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(query)).rows
  } finally {
    await client.end()
  }
}

const asAdmin = <T = Record<string, unknown>>(query: string) => queryOn<T>(inject('postgresUrl'), query)

export interface ScratchPostgres {
  url: string
  /** the rows `query` answers in this database, on a connection of its own (over `url`) */
  query<T = Record<string, unknown>>(query: string): Promise<T[]>
  /** the same database through the server's first Unix socket directory */
  socketUrls(): Promise<{ inHost: string; inQuery: string }>
  drop(): Promise<void>
}

export async function scratchPostgres(prefix: string): Promise<ScratchPostgres> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  await asAdmin(`create database ${name}`)
  const url = new URL(inject('postgresUrl'))
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    query: (query) => queryOn(url.toString(), query),
    socketUrls: async () => {
      const [row] = await asAdmin(
        `select split_part(current_setting('unix_socket_directories'), ',', 1) as dir,
                current_setting('port') as port`,
      )
      const dir = String(row?.dir ?? '').trim()
      if (!dir) throw new Error('this PostgreSQL server listens on no Unix socket')
      const inHost = new URL(url)
      inHost.host = `${encodeURIComponent(dir)}:${row?.port}`
      const query = new URLSearchParams({ host: dir, port: String(row?.port), user: url.username })
      if (url.password) query.set('password', decodeURIComponent(url.password))
      return { inHost: inHost.toString(), inQuery: `postgresql:///${name}?${query}` }
    },
    drop: () => asAdmin(`drop database if exists ${name} with (force)`).then(() => undefined),
  }
}

/**
 * A one-connection pool whose connection sends BEGIN and the statements sent ahead with the next
 * statement (`deferBegin`), as the service's pool does, with the round trips (the server's
 * ReadyForQuery answers) and the statements parsed counted.
 */
export function countingPool(url: string) {
  const counts = { roundTrips: 0, parses: 0 }
  const pool = new pg.Pool({ connectionString: url, max: 1 })
  pool.on('connect', (client) => {
    deferBegin(client)
    const connection = (client as unknown as { connection: pg.Connection }).connection
    connection.on('readyForQuery', () => {
      counts.roundTrips++
    })
    connection.on('parseComplete', () => {
      counts.parses++
    })
  })
  return { pool, counts }
}
