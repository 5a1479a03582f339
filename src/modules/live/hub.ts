// The sockets of this process: who is connected, delivery of pushes from the LISTEN connection,
// client requests (`{type, id?, data}` answered by `ack` or `error` with the same id), heartbeat
// pings, re-checks of each socket's session, and dropping sockets that do not keep up.
import { Buffer } from 'node:buffer'
import { hostname } from 'node:os'
import type { Logger } from 'pino'
import type { WebSocket } from 'ws'
import type { Database } from '../../db/index.ts'
import type { ChannelListener } from '../../db/listen.ts'
import type { AuthContext } from '../../http/auth.ts'
import { AppError } from '../../http/errors.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { CLOSE, defaultLiveOptions, type LiveOptions } from './options.ts'
import type { Presence } from './presence.ts'
import { LIVE_CHANNEL, type LiveWire } from './publish.ts'
import { liveRepo } from './repo.ts'

export { CLOSE, defaultLiveOptions, type LiveOptions } from './options.ts'

/** `ws.send` options of every message (text frames); one object, not one per call */
const TEXT = { binary: false } as const

export type ClientRequestHandler = (ctx: AuthContext, data: unknown) => Promise<unknown>

interface Conn {
  ws: WebSocket
  auth: AuthContext
  token: string
  alive: boolean
}

export interface LiveHubDeps {
  database: Database
  presence: Presence
  log: Logger
  /** resolves a bearer token to its live session (undefined: invalid, expired or revoked) */
  authenticate(token: string): Promise<AuthContext | undefined>
  options?: Partial<LiveOptions>
}

export function newProcessId() {
  return `${hostname()}:${process.pid}:${newId()}`
}

export class LiveHub {
  readonly options: LiveOptions
  readonly #byUser = new Map<string, Set<Conn>>()
  readonly #handlers = new Map<string, ClientRequestHandler>()
  readonly #pending = new Set<Promise<unknown>>()
  /** pushes received and not yet delivered: those behind a stored one being loaded, or behind
   * one whose delivery to many sockets is under way */
  readonly #inbox: LiveWire[] = []
  #busy = false
  #listener: ChannelListener | undefined
  #timer: NodeJS.Timeout | undefined
  #stopping = false

  constructor(private readonly deps: LiveHubDeps) {
    this.options = { ...defaultLiveOptions, ...deps.options }
  }

  /** Client requests by message type (e.g. `chat.send`). */
  handle(type: string, handler: ClientRequestHandler) {
    this.#handlers.set(type, handler)
  }

  /** How many sockets this process holds (all users). */
  get size() {
    let n = 0
    for (const set of this.#byUser.values()) n += set.size
    return n
  }

  async start(): Promise<void> {
    await this.deps.presence.beat()
    this.#listener = await this.deps.database.listen(LIVE_CHANNEL, {
      onMessage: (payload) => this.#receive(payload),
      onReconnect: () =>
        this.deps.log.warn('live: LISTEN connection re-established; pushes sent meanwhile were missed'),
      onError: (err) => this.deps.log.warn({ err: err.message }, 'live: LISTEN connection lost'),
    })
    this.#timer = setInterval(() => this.#tick(), this.options.heartbeatMs)
    this.#timer.unref()
  }

  async stop(): Promise<void> {
    this.#stopping = true
    if (this.#timer) clearInterval(this.#timer)
    await this.#listener?.close()
    for (const set of this.#byUser.values())
      for (const c of set) c.ws.close(CLOSE.goingAway, 'server shutting down')
    await Promise.allSettled([...this.#pending])
    this.#byUser.clear()
    await this.deps.presence
      .leave()
      .catch((err) => this.deps.log.warn({ err }, 'live: leaving presence failed'))
  }

  /** A socket whose token is known (header or query), or one that must send `auth` first. */
  accept(ws: WebSocket, auth: { ctx: AuthContext; token: string } | undefined) {
    if (auth) {
      this.#attach(ws, auth.ctx, auth.token)
      return
    }
    const timer = setTimeout(
      () => ws.close(CLOSE.unauthenticated, 'authentication required'),
      this.options.authTimeoutMs,
    )
    timer.unref()
    const onFirst = (raw: Buffer) => {
      clearTimeout(timer)
      const msg = parse(raw)
      const token = msg?.type === 'auth' ? (msg.data as { token?: unknown } | undefined)?.token : undefined
      if (typeof token !== 'string' || token.length > 4096) {
        ws.close(CLOSE.unauthenticated, 'authentication required')
        return
      }
      this.#track(
        this.deps.authenticate(token).then(
          (ctx) => {
            if (!ctx) ws.close(CLOSE.unauthenticated, 'invalid, expired or revoked token')
            else if (ws.readyState === ws.OPEN) this.#attach(ws, ctx, token, msg?.id)
          },
          () => ws.close(CLOSE.unauthenticated, 'authentication failed'),
        ),
      )
    }
    ws.once('message', onFirst)
    ws.once('close', () => clearTimeout(timer))
  }

  #attach(ws: WebSocket, auth: AuthContext, token: string, authId?: unknown) {
    const conn: Conn = { ws, auth, token, alive: true }
    const set = this.#byUser.get(auth.userId) ?? new Set<Conn>()
    this.#byUser.set(auth.userId, set)
    // A new tab wins over a forgotten one: past the cap, the oldest sockets are closed.
    this.#closeOldest(auth.userId, set.size + 1 - this.options.maxSocketsPerUser)
    set.add(conn)
    const registered = this.#track(
      this.deps.presence
        .connected(auth.userId)
        .then((elsewhere) => this.#capElsewhere(auth.userId, set.size, elsewhere))
        .catch((err) => this.deps.log.warn({ err }, 'live: presence failed')),
    )
    ws.on('pong', () => {
      conn.alive = true
    })
    ws.on('message', (raw: Buffer) => this.#request(conn, raw))
    ws.on('close', () => {
      set.delete(conn)
      if (set.size === 0 && this.#byUser.get(auth.userId) === set) this.#byUser.delete(auth.userId)
      if (this.#stopping) return
      // After the connect is recorded, so a quick close never leaves the user ONLINE.
      this.#track(
        registered.then(() =>
          this.deps.presence
            .disconnected(auth.userId)
            .catch((err) => this.deps.log.warn({ err }, 'live: presence failed')),
        ),
      )
    })
    ws.on('error', () => ws.terminate())
    void registered.then(() =>
      this.#send(
        conn,
        JSON.stringify({
          type: 'ready',
          ...(authId !== undefined ? { id: authId } : {}),
          data: { userId: auth.userId },
        }),
      ),
    )
  }

  /**
   * The account's sockets on other processes count toward its cap too: past it, the processes
   * that hold the most are asked (on the live channel) to close their oldest.
   */
  async #capElsewhere(
    userId: string,
    here: number,
    elsewhere: Array<{ processId: string; sockets: number }>,
  ) {
    let excess = here + elsewhere.reduce((n, e) => n + e.sockets, 0) - this.options.maxSocketsPerUser
    for (const e of elsewhere) {
      if (excess <= 0) return
      const n = Math.min(excess, e.sockets)
      excess -= n
      const wire: LiveWire = { close: { p: e.processId, u: userId, n } }
      await liveRepo.notify(this.deps.database.db, LIVE_CHANNEL, JSON.stringify(wire))
    }
  }

  /** Closes the `n` oldest sockets of a user here (for a new one, or as another process asked). */
  #closeOldest(userId: string, n: number) {
    const set = this.#byUser.get(userId)
    if (!set || n <= 0) return
    for (const old of [...set].slice(0, n)) {
      set.delete(old)
      old.ws.close(CLOSE.tooMany, 'too many open sockets for this account')
    }
  }

  #request(conn: Conn, raw: Buffer) {
    const msg = parse(raw)
    if (!msg) {
      this.#send(
        conn,
        JSON.stringify({
          type: 'error',
          data: { code: 'VALIDATION_ERROR', message: 'Messages are JSON objects {type, id?, data}' },
        }),
      )
      return
    }
    const id = msg.id
    const reply = (type: string, data: unknown) =>
      this.#send(conn, JSON.stringify({ type, ...(id !== undefined ? { id } : {}), data }))
    if (msg.type === 'ping') return reply('pong', null)
    const handler = this.#handlers.get(msg.type)
    if (!handler)
      return reply('error', { code: 'VALIDATION_ERROR', message: `Unknown message type ${msg.type}` })
    this.#track(
      Promise.resolve()
        .then(() => handler(conn.auth, msg.data))
        .then(
          (data) => reply('ack', data ?? null),
          (err: unknown) => {
            if (err instanceof AppError)
              reply('error', { code: err.code, message: err.message, ...err.details })
            else {
              this.deps.log.error({ err }, 'live: request failed')
              reply('error', { code: 'INTERNAL', message: 'Internal error' })
            }
          },
        ),
    )
  }

  #receive(payload: string) {
    let wire: LiveWire
    try {
      wire = JSON.parse(payload)
    } catch {
      return
    }
    if ('close' in wire) {
      if (wire.close.p === this.deps.presence.processId) this.#closeOldest(wire.close.u, wire.close.n)
      return
    }
    this.#inbox.push(wire)
    if (!this.#busy) this.#drainInbox()
  }

  /**
   * Pushes in the order they were notified: a stored one (over the NOTIFY limit) is loaded, and a
   * push to more sockets than one batch is written to all of them, before any push notified after
   * it is delivered.
   */
  #drainInbox() {
    while (this.#inbox.length > 0 && !this.#busy) {
      const wire = this.#inbox.shift()!
      if ('ref' in wire) {
        this.#busy = true
        this.#track(
          liveRepo
            .loadMessage(this.deps.database.db, wire.ref)
            .then(
              (stored) =>
                stored
                  ? this.#deliver((typeof stored === 'string' ? JSON.parse(stored) : stored) as LiveWire)
                  : undefined,
              (err) => this.deps.log.warn({ err }, 'live: loading a stored push failed'),
            )
            .catch((err) => this.deps.log.warn({ err }, 'live: delivering a stored push failed'))
            .finally(() => {
              this.#busy = false
              this.#drainInbox()
            }),
        )
      } else {
        const delivered = this.#deliver(wire)
        if (delivered) {
          this.#busy = true
          this.#track(
            delivered.finally(() => {
              this.#busy = false
              this.#drainInbox()
            }),
          )
        }
      }
    }
  }

  /**
   * One push: serialised and encoded once, the same bytes written to every socket it reaches, in
   * batches of `fanoutBatch` sockets with a turn of the event loop between them. Answers a promise
   * when the delivery goes on after it returns (later pushes wait for it).
   */
  #deliver(wire: LiveWire): Promise<void> | undefined {
    if (!('u' in wire)) return undefined
    const targets: Conn[] = []
    for (const userId of wire.u) {
      const set = this.#byUser.get(userId)
      if (set) for (const conn of set) targets.push(conn)
    }
    if (targets.length === 0) return undefined
    const frame = Buffer.from(JSON.stringify({ type: wire.t, data: wire.d }))
    const batch = Math.max(1, this.options.fanoutBatch)
    const write = (from: number) => {
      const to = Math.min(targets.length, from + batch)
      for (let i = from; i < to; i++) this.#send(targets[i]!, frame)
      return to
    }
    let done = write(0)
    if (done === targets.length) return undefined
    return new Promise<void>((resolve) => {
      const next = () => {
        done = write(done)
        if (done === targets.length) resolve()
        else setImmediate(next)
      }
      setImmediate(next)
    })
  }

  /** A text message (a string, or its UTF-8 bytes shared by many sockets). */
  #send(conn: Conn, text: string | Buffer) {
    const { ws } = conn
    if (ws.readyState !== ws.OPEN) return
    // A client that does not read is dropped rather than buffered for without bound.
    if (ws.bufferedAmount > this.options.maxBufferedBytes) {
      ws.close(CLOSE.slow, 'too slow')
      setTimeout(() => ws.terminate(), 1000).unref()
      return
    }
    ws.send(text, TEXT)
  }

  #tick() {
    const local = new Map<string, number>()
    // The sockets of one session (a user's tabs share its token) are checked with one lookup.
    const byToken = new Map<string, Conn[]>()
    for (const [userId, set] of this.#byUser) {
      local.set(userId, set.size)
      for (const conn of set) {
        if (!conn.alive) {
          conn.ws.terminate()
          continue
        }
        conn.alive = false
        conn.ws.ping()
        const same = byToken.get(conn.token)
        if (same) same.push(conn)
        else byToken.set(conn.token, [conn])
      }
    }
    // A revoked session (logout, password change) loses its sockets.
    for (const [token, conns] of byToken)
      this.#track(
        this.deps.authenticate(token).then(
          (ctx) => {
            if (!ctx) for (const conn of conns) conn.ws.close(CLOSE.unauthenticated, 'session revoked')
          },
          () => {},
        ),
      )
    this.#track(
      this.deps.presence
        .beat(local)
        .then(() => liveRepo.pruneMessages(this.deps.database.db, 5 * 60_000))
        .catch((err) => this.deps.log.warn({ err }, 'live: heartbeat failed')),
    )
  }

  /** Runs the periodic work now (tests, and anyone who cannot wait for the timer). */
  tickNow() {
    this.#tick()
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.#pending.add(p)
    void p.finally(() => this.#pending.delete(p))
    return p
  }

  /** Resolves once the work started so far (presence writes, requests) is done. */
  async settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending])
  }
}

function parse(raw: Buffer): { type: string; id?: unknown; data?: unknown } | undefined {
  try {
    const msg = JSON.parse(raw.toString('utf8'))
    if (msg && typeof msg === 'object' && !Array.isArray(msg) && typeof msg.type === 'string') return msg
  } catch {}
  return undefined
}
