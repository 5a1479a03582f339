// Time as a dependency, so tests can move it (code and URL expiry) without waiting.
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

/** A clock that starts at real time and can be moved forward by tests. */
export class ManualClock implements Clock {
  #offsetMs = 0
  now() {
    return new Date(Date.now() + this.#offsetMs)
  }
  advance(ms: number) {
    this.#offsetMs += ms
  }
}
