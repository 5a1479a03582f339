// At most `size` tasks of one kind running at once in this process; the rest wait their turn, first
// come first served. For CPU work handed to the thread pool (password hashes): unlimited, a burst
// of it takes every core and leaves none to the event loop that answers all other requests. And
// `Turns`: one task at a time per key.
export class Lanes {
  #running = 0
  readonly #waiting: (() => void)[] = []

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error('lanes need a size of at least 1')
  }

  /** tasks running now */
  get running() {
    return this.#running
  }

  /** tasks waiting for a lane */
  get waiting() {
    return this.#waiting.length
  }

  /** Runs `task` once a lane is free; the lane is free again when it settles, however it ends. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.size) await new Promise<void>((resolve) => this.#waiting.push(resolve))
    else this.#running++
    try {
      return await task()
    } finally {
      // The lane passes straight to the next waiter (still counted as running), or is freed.
      const next = this.#waiting.shift()
      if (next) next()
      else this.#running--
    }
  }
}

/**
 * One task at a time per key in this process, first come first served; a key is forgotten once its
 * last task settles. For work that a database row lock serialises anyway (the sends of one
 * address): the tasks wait their turn here, in memory, instead of each holding a pooled connection
 * while PostgreSQL makes it wait for the row. The row lock still serialises other processes. Not
 * re-entrant: a task that runs another of its own key waits for itself forever.
 */
export class Turns {
  readonly #tails = new Map<string, Promise<void>>()

  /** keys with a task running or waiting */
  get size() {
    return this.#tails.size
  }

  /** Runs `task` once every task of `key` that came before it has settled, however it ended. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(key)
    let done!: () => void
    const mine = new Promise<void>((resolve) => {
      done = resolve
    })
    const tail = before ? before.then(() => mine) : mine
    this.#tails.set(key, tail)
    try {
      if (before) await before
      return await task()
    } finally {
      done()
      if (this.#tails.get(key) === tail) this.#tails.delete(key)
    }
  }
}
