// Requests before jobs for the pooled PostgreSQL connections of a process. Without an order, a
// process that answers requests and runs jobs lends its connections first come, first served: the
// worker's slots (more of them than connections) take their share of every connection that frees,
// and a request waits behind a queue of job transactions it cannot see. Here work started by the
// job worker's loop (`asBackground`) takes a connection only
// - at once while it holds fewer than `min` (jobs are never starved, however busy the requests);
// - at once while it holds fewer than `max`, a connection is free and no request waits for one;
// - otherwise when a connection frees and both hold again, or after `maxDelayMs` in any case (a
//   job that holds a connection and asks for a second one, or a request waiting on a row a job's
//   transaction locked, cannot wait for ever).
// A request takes a connection as pg's pool lends it, in the order asked. The embedded database
// has one connection and no pool: its statements run in the order sent.
import { AsyncLocalStorage } from 'node:async_hooks'
import type pg from 'pg'

const background = new AsyncLocalStorage<true>()

/** Runs `fn`, and all it starts, as background work: its connections give way to requests'. */
export function asBackground<T>(fn: () => T): T {
  return background.run(true, fn)
}

/** Whether the caller runs as background work (`asBackground`). */
export function inBackground(): boolean {
  return background.getStore() === true
}

export interface BackgroundShare {
  /** connections background work takes whether requests wait or not */
  min: number
  /** most connections background work holds while requests wait */
  max: number
  /** longest a background caller waits for its turn before it queues like a request */
  maxDelayMs: number
}

/** A fifth of the pool (at least one connection) for jobs always, and all but a fifth at most. */
export function backgroundShare(size: number, maxDelayMs = 1000): BackgroundShare {
  const fifth = Math.max(1, Math.floor(size / 5))
  return { min: Math.min(fifth, size), max: Math.max(fifth, size - fifth), maxDelayMs }
}

interface Waiter {
  admit(): void
  timer: NodeJS.Timeout
}

/** pg's pool behind the order above; Kysely's PostgresDialect takes it as its pool. */
export class PriorityPool {
  #held = 0
  #waited = 0
  readonly #waiters: Waiter[] = []

  constructor(
    readonly pool: pg.Pool,
    readonly size: number,
    readonly share: BackgroundShare = backgroundShare(size),
  ) {
    // pg emits `release` before it lends the connection to a caller in its queue: look after that.
    pool.on('release', () => queueMicrotask(() => this.#wake()))
    pool.on('remove', () => queueMicrotask(() => this.#wake()))
  }

  /** connections lent to background work now */
  get background() {
    return this.#held
  }
  /** times background work waited for its turn since the pool opened */
  get backgroundWaits() {
    return this.#waited
  }

  connect(): Promise<pg.PoolClient> {
    if (!inBackground()) return this.pool.connect()
    if (this.#waiters.length === 0 && this.#mayLend()) {
      this.#held++
      return this.#lend()
    }
    this.#waited++
    return new Promise<void>((resolve) => {
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(waiter.timer)
          this.#held++
          resolve()
        },
        timer: setTimeout(() => {
          const at = this.#waiters.indexOf(waiter)
          if (at >= 0) this.#waiters.splice(at, 1)
          waiter.admit()
        }, this.share.maxDelayMs),
      }
      this.#waiters.push(waiter)
    }).then(() => this.#lend())
  }

  end(): Promise<void> {
    for (const w of this.#waiters.splice(0)) w.admit()
    return this.pool.end()
  }

  /** Within its minimum, or within its maximum with a connection free that no request waits for. */
  #mayLend() {
    if (this.#held < this.share.min) return true
    const p = this.pool
    const free = p.idleCount > 0 || p.totalCount < this.size
    return this.#held < this.share.max && p.waitingCount === 0 && free
  }

  #wake() {
    while (this.#waiters.length > 0 && this.#mayLend()) this.#waiters.shift()!.admit()
  }

  /** A connection for background work (counted in `#held` already), given back to the count on release. */
  async #lend(): Promise<pg.PoolClient> {
    let client: pg.PoolClient
    try {
      client = await this.pool.connect()
    } catch (err) {
      this.#held--
      this.#wake()
      throw err
    }
    const release = client.release
    client.release = (err?: Error | boolean) => {
      this.#held--
      client.release = release
      release.call(client, err)
    }
    return client
  }
}
