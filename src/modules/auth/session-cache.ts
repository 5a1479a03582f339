// The in-process cache of live sessions (session id → account), so an authenticated read costs no
// session query. Every change to what a session may do (logout, revocation, password change or
// reset, suspension, deletion) goes through `AuthService.sessionsChanged`, which sends a NOTIFY on
// `session_changed` in the caller's transaction: PostgreSQL delivers it to every API process at
// commit, and each drops the account's entries.
//
// Guarantees:
// - In the process that made the change, the account bypasses the cache from the moment the change
//   is made until its own notification comes back (proof of the commit): no read can see a stale
//   entry there, and a rolled-back change only costs queries until `pendingMs` passes.
// - In another process, a cached entry is answered only after a round trip on the listening
//   connection that started after the request came (`sync`, shared by every request waiting at
//   the same moment): PostgreSQL sends the connection every notification committed before that
//   round trip ahead of its answer, so a token revoked through any process, its commit answered,
//   is refused by every other process on its very next request. Nothing is cached while that
//   connection is down, and everything cached is dropped when it is lost and again when it is
//   back, since notifications may have been missed. (The embedded database is one process's alone:
//   no other process can revoke, and no round trip is needed.)
// - A lookup that raced with a change is not stored (the epoch moved while it ran).
// - Only positive answers are cached; entries also age out after `ttlMs` as a safety net.
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { Database, Executor } from '../../db/index.ts'
import { authRepo } from './repo.ts'

export const SESSION_CHANNEL = 'session_changed'
/** The account id of a change to every account's sessions (a revocation of them all). */
export const EVERY_ACCOUNT = '*'

export interface CachedSession {
  userId: string
  sessionId: string
}

interface Entry extends CachedSession {
  at: number
}

export interface SessionCacheOptions {
  /** entries kept at most (oldest dropped first); default 100,000 */
  max?: number
  /** age after which an entry is looked up again; default 5 minutes */
  ttlMs?: number
  /** how long a change whose notification never came (rolled back) keeps the account uncached */
  pendingMs?: number
  now?: () => number
}

export class SessionCache {
  /** names this process in its own notifications */
  readonly origin = randomUUID().slice(0, 8)
  readonly #entries = new Map<string, Entry>()
  readonly #byUser = new Map<string, Set<string>>()
  readonly #pending = new Map<string, { count: number; at: number }>()
  readonly #listeners = new Set<(userId: string) => void>()
  #epoch = 0
  #listening = false
  #sync: (() => Promise<void>) | undefined
  readonly #max: number
  readonly #ttlMs: number
  readonly #pendingMs: number
  readonly #now: () => number

  constructor(opts: SessionCacheOptions = {}) {
    this.#max = opts.max ?? 100_000
    this.#ttlMs = opts.ttlMs ?? 5 * 60_000
    this.#pendingMs = opts.pendingMs ?? 60_000
    this.#now = opts.now ?? Date.now
  }

  get listening(): boolean {
    return this.#listening
  }

  get size(): number {
    return this.#entries.size
  }

  /** The state of the notification connection: either way, what was cached may be stale. */
  setListening(on: boolean): void {
    this.#listening = on
    this.#epoch++
    this.#entries.clear()
    this.#byUser.clear()
  }

  /**
   * How to be sure every notification committed so far has arrived (the listening connection's
   * round trip); undefined when no other process can change sessions.
   */
  setSync(sync: (() => Promise<void>) | undefined): void {
    this.#sync = sync
  }

  /**
   * The cached session, answered only once every notification committed before this call has
   * been applied; undefined when none is cached, when it was dropped meanwhile, or when that cannot
   * be made sure (the connection is down): the caller then reads the database.
   */
  async lookup(sessionId: string): Promise<CachedSession | undefined> {
    if (!this.get(sessionId)) return
    if (this.#sync) {
      try {
        await this.#sync()
      } catch {
        return
      }
    }
    return this.get(sessionId)
  }

  /** Taken before a lookup and handed to `put`, so a lookup that raced with a change is not kept. */
  epoch(): number {
    return this.#epoch
  }

  get(sessionId: string): CachedSession | undefined {
    if (!this.#listening) return
    const e = this.#entries.get(sessionId)
    if (!e) return
    if (this.#now() - e.at > this.#ttlMs || this.#isPending(e.userId)) {
      this.#drop(e.userId)
      return
    }
    return e
  }

  put(s: CachedSession, epochAtStart: number): void {
    if (!this.#listening || epochAtStart !== this.#epoch || this.#isPending(s.userId)) return
    if (this.#entries.size >= this.#max) {
      const oldest = this.#entries.keys().next().value
      if (oldest !== undefined) this.#dropSession(oldest)
    }
    this.#entries.set(s.sessionId, { userId: s.userId, sessionId: s.sessionId, at: this.#now() })
    const set = this.#byUser.get(s.userId)
    if (set) set.add(s.sessionId)
    else this.#byUser.set(s.userId, new Set([s.sessionId]))
  }

  /** This process is changing the account's sessions (in a transaction not yet committed). */
  changing(userId: string): void {
    this.#epoch++
    this.#drop(userId)
    const p = this.#pending.get(userId)
    this.#pending.set(userId, { count: (p?.count ?? 0) + 1, at: this.#now() })
    // Changes rolled back never get their notification: forget them once they are old.
    if (this.#pending.size > 10_000)
      for (const [id, q] of this.#pending) if (this.#now() - q.at > this.#pendingMs) this.#pending.delete(id)
  }

  /** A `session_changed` notification: `<origin>:<userId>`. */
  notified(payload: string): void {
    const i = payload.indexOf(':')
    const origin = payload.slice(0, i)
    const userId = payload.slice(i + 1)
    this.#epoch++
    this.#drop(userId)
    if (origin === this.origin) {
      const p = this.#pending.get(userId)
      if (p && p.count > 1) p.count--
      else this.#pending.delete(userId)
    }
    for (const l of this.#listeners) l(userId)
  }

  /** Called with the account id of every notification this process receives. */
  onNotified(listener: (userId: string) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Sends the notification inside `ex`'s transaction (delivered at commit; at once without one). */
  async publish(ex: Executor, userId: string): Promise<void> {
    this.changing(userId)
    await authRepo.notify(ex, SESSION_CHANNEL, `${this.origin}:${userId}`)
  }

  #isPending(userId: string): boolean {
    return this.#pendingOf(userId) || (userId !== EVERY_ACCOUNT && this.#pendingOf(EVERY_ACCOUNT))
  }

  #pendingOf(userId: string): boolean {
    const p = this.#pending.get(userId)
    if (!p) return false
    if (this.#now() - p.at > this.#pendingMs) {
      this.#pending.delete(userId)
      return false
    }
    return true
  }

  #drop(userId: string): void {
    if (userId === EVERY_ACCOUNT) {
      this.#entries.clear()
      this.#byUser.clear()
      return
    }
    const set = this.#byUser.get(userId)
    if (!set) return
    for (const id of set) this.#entries.delete(id)
    this.#byUser.delete(userId)
  }

  #dropSession(sessionId: string): void {
    const e = this.#entries.get(sessionId)
    if (!e) return
    this.#entries.delete(sessionId)
    const set = this.#byUser.get(e.userId)
    set?.delete(sessionId)
    if (set?.size === 0) this.#byUser.delete(e.userId)
  }
}

/**
 * A cache fed by the database's `session_changed` notifications. When the listening connection
 * cannot be opened, the cache stays off (every request looks its session up) rather than failing
 * the start.
 */
export async function startSessionCache(
  database: Database,
  log?: Logger,
  opts: SessionCacheOptions = {},
): Promise<{ cache: SessionCache; stop: () => Promise<void> }> {
  const cache = new SessionCache(opts)
  try {
    const listener = await database.listen(SESSION_CHANNEL, {
      onMessage: (p) => cache.notified(p),
      onLost: () => cache.setListening(false),
      onReconnect: () => cache.setListening(true),
      onError: (err) => log?.warn({ err: err.message }, 'session notifications: connection lost'),
    })
    cache.setSync(listener.sync)
    cache.setListening(true)
    return {
      cache,
      stop: async () => {
        cache.setSync(undefined)
        cache.setListening(false)
        await listener.close()
      },
    }
  } catch (err) {
    log?.warn({ err: err instanceof Error ? err.message : String(err) }, 'session cache off: cannot listen')
    return { cache, stop: async () => {} }
  }
}
