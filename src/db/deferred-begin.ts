// A transaction's BEGIN travels with its first statement: one write and one round trip instead of
// two. Kysely opens a transaction by sending `begin` and waiting for its answer before the
// transaction's first statement; over a network (and on loopback, where each write costs the
// sender the receiver's work too) that wait and write are a good part of a short transaction's
// cost. On a pool client given to `deferBegin`, a plain `begin` is answered at once without being
// sent; the next statement goes out as BEGIN then the statement in one extended-protocol batch
// (Parse/Bind/Execute of BEGIN, then the statement's Parse/Bind/Describe/Execute, then one Sync),
// which PostgreSQL runs in order: BEGIN turns the batch into the transaction block the statement
// runs in. A transaction that sent nothing commits or rolls back without a round trip. Any other
// way of opening a transaction (`start transaction isolation level …`) is sent as it is.
//
// The same client also sends the calls `statementName` names (src/db/prepared.ts) as named
// statements, parsed once per connection.
import pg from 'pg'
import { statementName } from './prepared.ts'

type Callback = (err: Error | null, result?: unknown) => void
interface Connection {
  parse(query: { text: string; name?: string }): void
  bind(config: object): void
  execute(config: object): void
}
// The parts of pg's Query this file relies on (not in its published types).
interface QueryInternals {
  prepare(connection: Connection): void
  handleCommandComplete(msg: unknown, connection: Connection): void
  hasBeenParsed(connection: Connection): boolean
  name?: string
  text: string
}

interface Submitted {
  submittedNamedStatements: Record<string, string>
}

const Query = pg.Query as unknown as new (
  config: { text: string; values: unknown[]; queryMode: 'extended'; name?: string },
  values: undefined,
  callback: Callback,
) => pg.Query & QueryInternals

/** The statement, preceded on the wire by the transaction's BEGIN. */
class BeginThen extends Query {
  #begun = false

  override prepare(connection: Connection): void {
    // A named statement new to this connection is parsed ahead of BEGIN: the first ParseComplete
    // is then its own (the one pg records the name on), and a statement that does not parse
    // leaves no name behind.
    if (this.name && !this.hasBeenParsed(connection)) {
      connection.parse({ text: this.text, name: this.name })
      ;(connection as unknown as Submitted).submittedNamedStatements[this.name] = this.text
    }
    connection.parse({ text: 'begin' })
    connection.bind({})
    connection.execute({})
    super.prepare(connection)
  }

  // The first completion is BEGIN's; the statement's result is the one the caller gets.
  override handleCommandComplete(msg: unknown, connection: Connection): void {
    if (!this.#begun) {
      this.#begun = true
      return
    }
    super.handleCommandComplete(msg, connection)
  }
}

const answered = (command: string) => ({ command, rowCount: null, rows: [], fields: [] })

/** Makes `client` send a transaction's BEGIN with its first statement (see above). */
export function deferBegin(client: pg.PoolClient): void {
  const send = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>
  let pending = false
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    const plain = typeof text === 'string' && Array.isArray(values) && callback === undefined
    if (plain && text === 'begin' && values.length === 0) {
      pending = true
      return Promise.resolve(answered('BEGIN'))
    }
    const name = plain ? statementName(text) : undefined
    if (!pending) return name ? send({ name, text, values }) : send(text, values, callback)
    pending = false
    if (!plain) {
      // Not a call this file knows (a config object, a callback, a cursor): BEGIN is queued first,
      // as Kysely would have sent it, and the call is answered as the client answers it.
      send('begin').catch(() => undefined)
      return send(text, values, callback)
    }
    if ((text === 'commit' || text === 'rollback') && values.length === 0)
      return Promise.resolve(answered(text.toUpperCase()))
    return new Promise((resolve, reject) => {
      send(
        new BeginThen({ text, values, queryMode: 'extended', name }, undefined, (err, result) =>
          err ? reject(err) : resolve(result),
        ),
      )
    })
  }) as typeof client.query
}
