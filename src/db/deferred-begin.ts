// What a transaction sends ahead of its next statement travels with it: one write and one round
// trip instead of several. Two kinds of statement wait for the next one:
// - BEGIN. Kysely opens a transaction by sending `begin` and waiting for its answer before the
//   transaction's first statement; over a network (and on loopback, where each write costs the
//   sender the receiver's work too) that wait and write are a good part of a short transaction's
//   cost. A plain `begin` is answered at once without being sent.
// - Statements marked as sent ahead (`sendAhead`, src/db/ahead.ts): writes whose answer no caller
//   reads (a NOTIFY, a job queued), inside a transaction. Each is answered at once with no rows.
// The next statement goes out after them in one extended-protocol batch (Parse/Bind/Execute of
// each waiting one, then the statement's Parse/Bind/Describe/Execute, then one Sync), which
// PostgreSQL runs in order: BEGIN turns the batch into the transaction block the rest runs in. A
// waiting statement that fails fails the batch: the next statement (or the COMMIT) answers its
// error, and the transaction rolls back as after any failed statement. A transaction that sent
// nothing commits or rolls back without a round trip; a rollback drops what waits. Any other way
// of opening a transaction (`start transaction isolation level …`) is sent as it is, and a call
// this file does not know (a config object, a callback) first sends what waits, one by one; when
// one of those fails, a config object's call and every later statement of the transaction answer
// its error, and the COMMIT rolls back.
//
// The same client also sends the calls `statementName` names (src/db/prepared.ts) as named
// statements, parsed once per connection.
import { createRequire } from 'node:module'
import pg from 'pg'
import { AHEAD } from './ahead.ts'
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
  handleDataRow(msg: unknown): void
  handleCommandComplete(msg: unknown, connection: Connection): void
  hasBeenParsed(connection: Connection): boolean
  name?: string
  text: string
}

interface Submitted {
  submittedNamedStatements: Record<string, string>
}

/** A statement waiting for the next one: its text and values (never a named statement). */
interface Waiting {
  text: string
  values: unknown[]
}

const Query = pg.Query as unknown as new (
  config: { text: string; values: unknown[]; queryMode: 'extended'; name?: string },
  values: undefined,
  callback: Callback,
) => pg.Query & QueryInternals

// pg's own mapping of values to the wire (dates, buffers, arrays, JSON), as its queries bind them.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue: (value: unknown) => unknown
}

/** The statement, preceded on the wire by what waited for it. */
class AfterWaiting extends Query {
  #pending: number

  constructor(
    config: { text: string; values: unknown[]; name?: string | undefined },
    private readonly waiting: Waiting[],
    callback: Callback,
  ) {
    super(
      {
        text: config.text,
        values: config.values,
        queryMode: 'extended',
        ...(config.name ? { name: config.name } : {}),
      },
      undefined,
      callback,
    )
    this.#pending = waiting.length
  }

  override prepare(connection: Connection): void {
    // A named statement new to this connection is parsed ahead of the rest: the first
    // ParseComplete is then its own (the one pg records the name on), and a statement that does
    // not parse leaves no name behind.
    if (this.name && !this.hasBeenParsed(connection)) {
      connection.parse({ text: this.text, name: this.name })
      ;(connection as unknown as Submitted).submittedNamedStatements[this.name] = this.text
    }
    for (const w of this.waiting) {
      connection.parse({ text: w.text })
      connection.bind({ values: w.values, valueMapper: prepareValue })
      connection.execute({})
    }
    super.prepare(connection)
  }

  // The rows and completions of the waiting statements come first; the statement's are the
  // caller's. (No Describe is sent for a waiting one, so its rows come without a description.)
  override handleDataRow(msg: unknown): void {
    if (this.#pending === 0) super.handleDataRow(msg)
  }

  override handleCommandComplete(msg: unknown, connection: Connection): void {
    if (this.#pending > 0) {
      this.#pending--
      return
    }
    super.handleCommandComplete(msg, connection)
  }
}

const answered = (command: string) => ({ command, rowCount: null, rows: [], fields: [] })
const BEGIN: Waiting = { text: 'begin', values: [] }

/** Makes `client` send a transaction's BEGIN and its statements sent ahead with the next statement (see above). */
export function deferBegin(client: pg.PoolClient): void {
  const send = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>
  let waiting: Waiting[] = []
  /** between a plain `begin` and its `commit` or `rollback` */
  let inTransaction = false
  /** the first error of a waiting statement sent on its own (before a call made another way) */
  let failed: unknown
  const batch = (text: string, values: unknown[], name?: string) => {
    const before = waiting
    waiting = []
    return new Promise((resolve, reject) => {
      send(
        new AfterWaiting({ text, values, name }, before, (err, result) =>
          err ? reject(err) : resolve(result),
        ),
      )
    })
  }
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    const plain = typeof text === 'string' && Array.isArray(values) && callback === undefined
    if (!plain) {
      // Not a call this file knows (a config object, a callback, a cursor): what waits is sent
      // first, one by one, as it would have been, and the call is answered as the client answers it.
      // The first failure of those is kept: the transaction is aborted, and its own error (not
      // "current transaction is aborted") is what the call and the statements after it answer.
      for (const w of waiting)
        send(w.text, w.values).catch((err: unknown) => {
          failed ??= err
        })
      waiting = []
      const answer = send(text, values, callback)
      if (!(answer instanceof Promise)) return answer
      return answer.catch((err: unknown) => {
        throw failed ?? err
      })
    }
    const bare = values.length === 0
    if (bare && text === 'begin') {
      inTransaction = true
      failed = undefined
      waiting = [BEGIN]
      return Promise.resolve(answered('BEGIN'))
    }
    if (failed !== undefined) {
      const err = failed
      if (bare && (text === 'commit' || text === 'rollback')) {
        inTransaction = false
        failed = undefined
        waiting = []
        // The server answers a COMMIT of an aborted transaction with ROLLBACK, not an error.
        const ended = send('rollback', [])
        return text === 'rollback' ? ended : ended.then(() => Promise.reject(err))
      }
      return Promise.reject(err)
    }
    if (inTransaction && text.startsWith(AHEAD)) {
      waiting.push({ text, values })
      return Promise.resolve(answered('AHEAD'))
    }
    if (bare && (text === 'commit' || text === 'rollback')) {
      inTransaction = false
      const sentNothing = waiting[0] === BEGIN
      if (text === 'rollback' || (sentNothing && waiting.length === 1)) {
        waiting = []
        // Nothing of the transaction reached the server: nothing to end there.
        if (sentNothing) return Promise.resolve(answered(text.toUpperCase()))
        return send(text, values)
      }
    }
    const name = statementName(text)
    if (waiting.length === 0) return name ? send({ name, text, values }) : send(text, values)
    return batch(text, values, name)
  }) as typeof client.query
}
