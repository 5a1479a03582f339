// A secret and, while it is being rotated out, the one it replaced: new signatures always use the
// current secret; the previous one is still accepted for what it signed (tokens, one-time codes,
// file URLs) until a stated time, so a rotation ends no session, code or link early and a rolling
// deploy has a window in which both generations of processes understand each other.
import { createHash } from 'node:crypto'
import type { Clock } from '../clock.ts'

export interface SecretRotation {
  current: string
  /** the secret being rotated out: verified (never used to sign) until `previousUntil` */
  previous?: string | undefined
  previousUntil?: Date | undefined
}

/** A short, public id of a secret (never the secret): names the key a token was signed with. */
export function keyIdOf(secret: string): string {
  return createHash('sha256').update(`workpay/key-id/${secret}`).digest('base64url').slice(0, 8)
}

export class SecretRing {
  readonly currentId: string
  readonly #previousId: string | undefined

  constructor(
    readonly rotation: SecretRotation,
    private readonly clock: Clock,
  ) {
    this.currentId = keyIdOf(rotation.current)
    this.#previousId = rotation.previous ? keyIdOf(rotation.previous) : undefined
  }

  get current(): string {
    return this.rotation.current
  }

  /** The previous secret while its window is open, else undefined. */
  get previous(): string | undefined {
    const { previous, previousUntil } = this.rotation
    return previous && previousUntil && this.clock.now() < previousUntil ? previous : undefined
  }

  /** The secrets a signature may have been made with now: the current one first. */
  verifying(): string[] {
    const previous = this.previous
    return previous ? [this.rotation.current, previous] : [this.rotation.current]
  }

  /** The secret of a key id, when it is one still accepted. */
  byId(id: string): string | undefined {
    if (id === this.currentId) return this.rotation.current
    return id === this.#previousId ? this.previous : undefined
  }
}
