// Passwords an account confirmed right a moment ago, kept by the process for a few minutes so that
// an account confirming several actions in a row (a run of withdrawals or payments) pays for
// argon2id (about 11 ms of CPU) once rather than each time. What is kept is an HMAC of the account,
// its stored password hash and the password under a key made at start and never stored: nothing
// of it outlives the process, a password change (a new hash) or a wrong attempt ends it, and it
// lasts `ttlMs` from the argon2id check that made it (a match does not extend it). The wrong-password
// limit is checked before it, as before.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { Kept } from '../../platform/kept.ts'

export class RecentPasswords {
  readonly #key = randomBytes(32)
  readonly #kept: Kept<{ mac: Buffer; at: number }>

  constructor(
    readonly ttlMs: number,
    max: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#kept = new Kept(max)
  }

  get size() {
    return this.#kept.size
  }

  #mac(userId: string, passwordHash: string, password: string): Buffer {
    return createHmac('sha256', this.#key).update(`${userId}\0${passwordHash}\0`).update(password).digest()
  }

  /** Whether `password` is the one the account confirmed within `ttlMs`, under the same stored hash. */
  matches(userId: string, passwordHash: string | null | undefined, password: string): boolean {
    const kept = this.#kept.get(userId)
    if (!kept || !passwordHash || this.now() - kept.at > this.ttlMs) return false
    return timingSafeEqual(kept.mac, this.#mac(userId, passwordHash, password))
  }

  /** The account just confirmed `password` with argon2id. */
  remember(userId: string, passwordHash: string | null | undefined, password: string): void {
    if (!passwordHash) return
    this.#kept.set(userId, { mac: this.#mac(userId, passwordHash, password), at: this.now() })
  }

  forget(userId: string): void {
    this.#kept.delete(userId)
  }
}
