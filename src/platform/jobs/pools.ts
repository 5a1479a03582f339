// The worker's slots, grouped by job kind: a kind registered with a `concurrency` of its own has a
// pool of that many slots that no other kind takes; every other kind shares the common pool. And
// the signal a waiting worker wakes on (a run ended, a job was enqueued, a stop).

import type { PoolState } from '../../db/index.ts'

/** Slots of one or more kinds; `busy` counts the slots running (or being claimed for). */
export interface Pool {
  name: string
  size: number
  busy: number
  kinds: string[]
  /** when its last claim found fewer ready jobs than free slots (undefined: it found enough) */
  shortAt?: number
  /** when it last looked for jobs whose lease lapsed */
  lapsedAt?: number
  /**
   * How many of its jobs may run while a request waits for a pooled connection: one, raised by one
   * at each claim of jobs that started late and lowered as they start on time again (`Pools.claimed`).
   */
  share: number
}

const SHARED = '*'

/** A group of slots (`shared` for the common ones) and its share (`Pool.share`). */
export interface GroupShare {
  group: string
  share: number
}

/** A connection pool as the worker sees it when it gives way to requests (`JobQueue.yieldTo`). */
export type PoolPressure = Pick<PoolState, 'waiting' | 'size'>

/**
 * How many more jobs the worker loop may start now, beyond one for each group of slots with none
 * running, beside the requests of its process: as many as keep the jobs running to all but a fifth
 * of the pool (8 of 10), so that a request finds a connection free, and while a caller waits for a
 * pooled connection at most `shareLeft` (the group's share beyond what it runs; none by default). No
 * limit without a pool (the embedded database, one connection).
 */
export function roomBesideRequests(pool: PoolPressure | undefined, running: number, shareLeft = 0): number {
  if (!pool) return Number.POSITIVE_INFINITY
  const room = Math.max(0, jobsRoom(pool) - running)
  return pool.waiting > 0 ? Math.min(room, Math.max(0, shareLeft)) : room
}

/** How many jobs may run beside the requests of the process on `pool`: all but a fifth of it. */
const jobsRoom = (pool: PoolPressure) => pool.size - Math.max(1, Math.floor(pool.size / 5))

/** How long after it was due the earliest due of `jobs` starts at `now` (0 for none). */
export function lateness(jobs: readonly { runAt: Date }[], now: Date): number {
  let due = Number.POSITIVE_INFINITY
  for (const job of jobs) due = Math.min(due, new Date(job.runAt).getTime())
  return jobs.length === 0 ? 0 : Math.max(0, now.getTime() - due)
}

export class Pools {
  readonly #shared: Pool = { name: SHARED, size: 10, busy: 0, kinds: [], share: 1 }
  readonly #own = new Map<string, Pool>()

  get sharedSize() {
    return this.#shared.size
  }
  set sharedSize(n: number) {
    if (!Number.isInteger(n) || n < 1) throw new Error('a pool needs at least one slot')
    this.#shared.size = n
  }

  /** Puts `kind` in a pool of its own of `concurrency` slots, or in the shared one. */
  assign(kind: string, concurrency: number | undefined) {
    this.#shared.kinds = this.#shared.kinds.filter((k) => k !== kind)
    if (concurrency === undefined) {
      this.#own.delete(kind)
      this.#shared.kinds.push(kind)
      return
    }
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new Error(`the concurrency of ${kind} must be a positive integer`)
    const pool = this.#own.get(kind)
    if (pool) pool.size = concurrency
    else this.#own.set(kind, { name: kind, size: concurrency, busy: 0, kinds: [kind], share: 1 })
  }

  /** The pools with kinds in them, the kinds' own first. */
  list(): Pool[] {
    const own = [...this.#own.values()]
    return this.#shared.kinds.length > 0 ? [...own, this.#shared] : own
  }

  /**
   * How many jobs `pool` may start now beside the requests of the process on `pressure`'s
   * connections: its free slots, cut to `roomBesideRequests` (while a request waits, to the pool's
   * share), but always one when it runs none.
   */
  startable(pool: Pool, pressure: PoolPressure | undefined): number {
    let running = this.#shared.busy
    for (const own of this.#own.values()) running += own.busy
    let room = roomBesideRequests(pressure, running, pool.share - pool.busy)
    if (pressure && pressure.waiting === 0) room -= this.#keptForOthers(pool, jobsRoom(pressure))
    return Math.min(pool.size - pool.busy, pool.busy === 0 ? Math.max(1, room) : room)
  }

  /**
   * The room beside requests kept for the groups other than `pool` that have ready jobs (their
   * last claim found as many as it asked for): each group's part of `room` (an equal part, at most
   * its slots) that it does not run yet. So a group with a backlog (payouts' sends) does not take
   * the whole room from another (their reports, mail): each runs its part, and a group with nothing
   * ready leaves its part to the others.
   */
  #keptForOthers(pool: Pool, room: number): number {
    const groups = this.list()
    const part = Math.ceil(room / groups.length)
    let kept = 0
    for (const g of groups)
      if (g !== pool && g.shortAt === undefined) kept += Math.max(0, Math.min(part, g.size) - g.busy)
    return kept
  }

  /**
   * Adjusts `pool`'s share after a claim of the worker loop that asked for `asked` jobs and got
   * `got`, the earliest due of them `lateMs` after it was due: a claim that found fewer ready jobs
   * than it asked for has caught up (the share is one again); otherwise a job later than `limitMs`
   * raises the share by one (up to the pool's slots), and one within half of it lowers it by one.
   * So a group whose jobs wait for requests gets more of the pool the longer they wait, and a
   * backlog of jobs starts within about `limitMs` of being due as long as the process can keep up.
   */
  claimed(pool: Pool, claim: { asked: number; got: number; lateMs: number; limitMs: number }) {
    if (claim.got < claim.asked) pool.share = 1
    else if (claim.lateMs > claim.limitMs) pool.share = Math.min(pool.size, pool.share + 1)
    else if (claim.lateMs < claim.limitMs / 2) pool.share = Math.max(1, pool.share - 1)
  }

  /** Each group with kinds in it (`shared` for the common slots) and its share. */
  shares(): GroupShare[] {
    return this.list().map((p) => ({ group: p === this.#shared ? 'shared' : p.name, share: p.share }))
  }

  of(kind: string): Pool {
    return this.#own.get(kind) ?? this.#shared
  }
}

/** A counter of events and the waiters for the next one. */
export class Signal {
  #generation = 0
  #timer: NodeJS.Timeout | undefined
  readonly #waiters = new Set<() => void>()

  get generation() {
    return this.#generation
  }

  /** Fires in `ms` (once, however often asked meanwhile; the timer keeps no process alive). */
  fireIn(ms: number) {
    if (this.#timer) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.fire()
    }, ms)
    this.#timer.unref()
  }

  cancelTimer() {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
  }

  fire() {
    this.#generation++
    const waiters = [...this.#waiters]
    this.#waiters.clear()
    for (const w of waiters) w()
  }

  /** Resolves at the first event after `generation` (at once if there was one), or after `timeoutMs`. */
  since(generation: number, timeoutMs?: number): Promise<void> {
    if (this.#generation !== generation) return Promise.resolve()
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined
      const done = () => {
        if (timer) clearTimeout(timer)
        this.#waiters.delete(done)
        resolve()
      }
      this.#waiters.add(done)
      if (timeoutMs !== undefined) timer = setTimeout(done, timeoutMs)
    })
  }
}
