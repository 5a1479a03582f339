// At most `size` tasks of one kind running at once in this process; the rest wait their turn, first
// come first served. For CPU work handed to the thread pool (password hashes): unlimited, a burst
// of it takes every core and leaves none to the event loop that answers all other requests.
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
