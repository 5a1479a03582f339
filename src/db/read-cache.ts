// In-process caches of hot reads (a profile, a wallet's balances, one collection), kept correct
// without any writer having to remember to invalidate them:
// - The driver sees every statement that writes a table (`writtenTables`, builder and raw SQL
//   alike); when the write is durable (its transaction commits, or at once for a statement on its
//   own), every cache reading that table is emptied, so the next read in this process, the
//   writer's included, goes to the database.
// - Right after, outside any transaction, the process tells the others on `cache_changed`
//   (`<origin>:<table>,<table>…`, one notification for the writes of the same moment), and they
//   empty the same caches. Under a steady stream of writes, notifications go at most once per
//   `publishIntervalMs` (5 ms), each naming every table written since the last: the first write
//   after a quiet spell is told at once, and a busy ledger does not send one notification per
//   transfer (each costs the sender and PostgreSQL a statement, and every listener a wake-up).
//   NOTIFY inside the writing transaction would serialise the commits of every such transaction
//   (PostgreSQL holds a global lock from the notification to the end of the commit), which the
//   money path cannot afford.
// - A read that raced with a change (a local write or a notification came while it ran) is
//   answered but not stored. Nothing is cached while the notification connection is down, and
//   everything is dropped when it is lost or back. Entries also age out after `ttlMs`.
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { ChannelListener, ListenHandlers } from './listen.ts'

export const CACHE_CHANNEL = 'cache_changed'

/**
 * The start of a statement that may write, after any leading comments (a statement sent ahead
 * starts with its mark, src/db/ahead.ts), and the table each write names.
 */
const MAY_WRITE = /^\s*(?:\/\*[\s\S]*?\*\/\s*|--[^\n]*\n\s*)*(?:with|insert|update|delete|merge|truncate)\b/i
const WRITE_TARGET =
  /\b(?:insert\s+into|update|delete\s+from|merge\s+into|truncate(?:\s+table)?)\s+(?:only\s+)?(?:"?public"?\.)?"?([a-z_][a-z0-9_]*)"?/gi

/** Database functions that write tables, called from a `select` (see `registerWritingFunction`). */
const writingFunctions = new Map<string, readonly string[]>()
let FUNCTION_CALL: RegExp | undefined

/**
 * Declares that `select name(…)` writes `tables`: a repo whose writes run inside a database
 * function registers it, so the read caches see those writes too.
 */
export function registerWritingFunction(name: string, tables: readonly string[]): void {
  writingFunctions.set(name.toLowerCase(), tables)
  writtenByText.clear()
  const names = [...writingFunctions.keys()].map((n) => n.replace(/[^a-z0-9_]/g, ''))
  FUNCTION_CALL = new RegExp(`\\b(${names.join('|')})"?\\s*\\(`, 'gi')
}

/**
 * Statement text → the tables it writes, for the texts seen so far: the same few hundred texts come
 * back on every request, and reading each again costs a few regular-expression scans. Bounded: a
 * text built with its values inlined must not grow it without end (when full, it starts over).
 */
const writtenByText = new Map<string, readonly string[]>()
const MAX_TEXTS = 2_000

/** The tables a statement writes (empty for a read); names that are not tables are harmless. */
export function writtenTables(sqlText: string): readonly string[] {
  let tables = writtenByText.get(sqlText)
  if (tables === undefined) {
    if (writtenByText.size >= MAX_TEXTS) writtenByText.clear()
    tables = Object.freeze(scanWrittenTables(sqlText))
    writtenByText.set(sqlText, tables)
  }
  return tables
}

function scanWrittenTables(sqlText: string): string[] {
  const out: string[] = []
  if (FUNCTION_CALL)
    for (const m of sqlText.matchAll(FUNCTION_CALL))
      out.push(...(writingFunctions.get(m[1]!.toLowerCase()) ?? []))
  if (!MAY_WRITE.test(sqlText)) return out
  for (const m of sqlText.matchAll(WRITE_TARGET)) out.push(m[1]!.toLowerCase())
  return out
}

export interface ReadCacheOptions {
  /** keys kept at most (least recently stored dropped first); default 50,000 */
  max?: number
  /** values kept per key (one per `sub`); default 1,000 */
  maxPerKey?: number
  /** age after which an entry is read again; default 5 minutes */
  ttlMs?: number
  now?: () => number
}

interface Entry<V> {
  value: V
  at: number
}

export class ReadCache<V> {
  readonly #entries = new Map<string, Map<string, Entry<V>>>()
  #epoch = 0
  #on = false
  readonly #max: number
  readonly #maxSubs: number
  readonly #ttlMs: number
  readonly #now: () => number
  hits = 0
  misses = 0

  constructor(
    readonly name: string,
    opts: ReadCacheOptions = {},
  ) {
    this.#max = opts.max ?? 50_000
    this.#maxSubs = opts.maxPerKey ?? 1000
    this.#ttlMs = opts.ttlMs ?? 5 * 60_000
    this.#now = opts.now ?? Date.now
  }

  get size(): number {
    return this.#entries.size
  }

  /**
   * The value for `key` (and `sub`, e.g. the viewer, when the value depends on who asks), from the
   * cache or from `load` (stored unless a change raced with it). A change to `key` drops every `sub`.
   */
  async get(key: string, load: () => Promise<V>, sub = ''): Promise<V> {
    const e = this.#on ? this.#entries.get(key)?.get(sub) : undefined
    if (e && this.#now() - e.at <= this.#ttlMs) {
      this.hits++
      return e.value
    }
    this.misses++
    const epoch = this.#epoch
    const value = await load()
    if (this.#on && epoch === this.#epoch) {
      let subs = this.#entries.get(key)
      if (subs) this.#entries.delete(key)
      else if (this.#entries.size >= this.#max) {
        const oldest = this.#entries.keys().next().value
        if (oldest !== undefined) this.#entries.delete(oldest)
      }
      subs ??= new Map()
      if (subs.size >= this.#maxSubs) subs.clear()
      subs.set(sub, { value, at: this.#now() })
      this.#entries.set(key, subs)
    }
    return value
  }

  /** A table this cache reads was written in this process: nothing cached so far is trusted. */
  written(): void {
    this.#epoch++
    this.#entries.clear()
  }

  /** Another process (or this one) changed `key`; `*` is every key. */
  changed(key: string): void {
    this.#epoch++
    if (key === '*') this.#entries.clear()
    else this.#entries.delete(key)
  }

  /** The notification connection's state: either way, what was cached may be stale. */
  setOn(on: boolean): void {
    this.#on = on
    this.written()
  }
}

/**
 * Which caches read which tables; fed by the driver (writes committed here) and by the other
 * processes' notifications.
 */
export class ReadCaches {
  /** names this process in its own notifications (it ignores them when they come back) */
  readonly origin = randomUUID().slice(0, 8)
  readonly #byTable = new Map<string, ReadCache<unknown>[]>()
  readonly #all: ReadCache<unknown>[] = []
  readonly #listeners = new Set<(payload: string) => void>()
  /** tables written here and not yet announced to the other processes */
  readonly #unsent = new Set<string>()
  #publish: ((payload: string) => Promise<void>) | undefined
  #flushing = false
  #on = false
  /** when the last notification went out (its start) */
  #lastSent = Number.NEGATIVE_INFINITY
  readonly #intervalMs: number
  /** whether a listener feeds these caches (one per database, however many apps share it) */
  fed = false

  constructor(opts: { publishIntervalMs?: number } = {}) {
    this.#intervalMs = opts.publishIntervalMs ?? 5
  }

  /** A cache of values read from `tables`: a write to any of them, here or elsewhere, empties it. */
  create<V>(name: string, tables: readonly string[], opts: ReadCacheOptions = {}): ReadCache<V> {
    const cache = new ReadCache<V>(name, opts)
    const any = cache as ReadCache<unknown>
    this.#all.push(any)
    for (const t of tables) this.#byTable.set(t, [...(this.#byTable.get(t) ?? []), any])
    cache.setOn(this.#on)
    return cache
  }

  /**
   * Statements that wrote `tables` committed in this process: the caches reading them are emptied
   * now, and the other processes are told right after (one notification for the writes of the
   * same moment, sent outside any transaction; at most one per `publishIntervalMs`).
   */
  written(tables: Iterable<string>): void {
    const seen = new Set<ReadCache<unknown>>()
    for (const t of tables) {
      const caches = this.#byTable.get(t)
      if (!caches) continue
      for (const c of caches) seen.add(c)
      if (this.#publish) this.#unsent.add(t)
    }
    for (const c of seen) c.written()
    if (this.#unsent.size && !this.#flushing) {
      this.#flushing = true
      setImmediate(() => void this.#flush())
    }
  }

  async #flush(): Promise<void> {
    try {
      while (this.#unsent.size && this.#publish) {
        const wait = this.#lastSent + this.#intervalMs - performance.now()
        if (wait > 0) {
          await new Promise((r) => setTimeout(r, wait))
          continue
        }
        const tables = [...this.#unsent]
        this.#unsent.clear()
        const started = performance.now()
        try {
          await this.#publish(`${this.origin}:${tables.join(',')}`)
          this.#lastSent = started
        } catch {
          // Sent again with the next write or when the connection is back.
          for (const t of tables) this.#unsent.add(t)
          return
        }
      }
    } finally {
      this.#flushing = false
    }
  }

  /** A `cache_changed` notification from another process: `<origin>:<table>,<table>…`. */
  notified(payload: string): void {
    const i = payload.indexOf(':')
    if (i < 0 || payload.slice(0, i) === this.origin) return
    const seen = new Set<ReadCache<unknown>>()
    for (const t of payload.slice(i + 1).split(',')) for (const c of this.#byTable.get(t) ?? []) seen.add(c)
    for (const c of seen) c.changed('*')
    for (const l of this.#listeners) l(payload)
  }

  /** Called with every other process's notification once it has been applied. */
  onNotified(listener: (payload: string) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /**
   * How this process tells the others (undefined: it shares its database with no other process,
   * or stopped). Writes not yet announced are sent at once.
   */
  setPublisher(publish: ((payload: string) => Promise<void>) | undefined): void {
    this.#publish = publish
    if (publish && this.#unsent.size && !this.#flushing) {
      this.#flushing = true
      void this.#flush()
    }
  }

  setOn(on: boolean): void {
    this.#on = on
    for (const c of this.#all) c.setOn(on)
  }

  get on(): boolean {
    return this.#on
  }
}

/**
 * Starts listening for `cache_changed` and publishing this process's writes. When the connection
 * cannot be opened the caches stay off (every read goes to the database) rather than failing the
 * start. `shared`: other processes may use the same database (PostgreSQL); the embedded database
 * is one process's alone, and then nothing is published.
 */
export async function listenReadCaches(
  caches: ReadCaches,
  listen: (channel: string, handlers: ListenHandlers) => Promise<ChannelListener>,
  shared: boolean,
  log?: Logger,
): Promise<() => Promise<void>> {
  if (caches.fed) return async () => {}
  caches.fed = true
  try {
    const listener = await listen(CACHE_CHANNEL, {
      onMessage: (p) => caches.notified(p),
      onLost: () => caches.setOn(false),
      onReconnect: () => caches.setOn(true),
      onError: (err) => log?.warn({ err: err.message }, 'cache notifications: connection lost'),
    })
    if (shared && listener.notify) caches.setPublisher(listener.notify)
    caches.setOn(true)
    return async () => {
      caches.setOn(false)
      caches.setPublisher(undefined)
      caches.fed = false
      await listener.close()
    }
  } catch (err) {
    caches.fed = false
    log?.warn({ err: err instanceof Error ? err.message : String(err) }, 'read caches off: cannot listen')
    return async () => {}
  }
}
