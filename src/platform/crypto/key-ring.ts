// Keys of one purpose (one-time codes, file URLs) derived from a root secret of that purpose with
// HKDF-SHA256 under the purpose's label, each named by a short public key id. During a rotation of
// the root, the key of the root it replaced still verifies (never signs) what it made until the
// rotation's window closes; anything naming another key id is refused without trying the others.
import { hkdfSync } from 'node:crypto'
import type { Clock } from '../clock.ts'
import { SecretRing, type SecretRotation } from './secret-ring.ts'

export class DerivedKeyRing {
  readonly #ring: SecretRing
  readonly #keys = new Map<string, Buffer>()

  /** `label` names the purpose (`workpay/one-time-codes/v1`): the same root gives each purpose
   * another key, so a signature of one can never be replayed as one of another. */
  constructor(
    rotation: SecretRotation,
    private readonly label: string,
    clock: Clock,
  ) {
    this.#ring = new SecretRing(rotation, clock)
  }

  /** The key id of the current root: what every new signature names. */
  get currentId(): string {
    return this.#ring.currentId
  }

  get current(): Buffer {
    return this.#derive(this.#ring.current)
  }

  /** The key of `id` while it is accepted (the current root, or the previous one in its window). */
  key(id: string): Buffer | undefined {
    const root = this.#ring.byId(id)
    return root === undefined ? undefined : this.#derive(root)
  }

  #derive(root: string): Buffer {
    let key = this.#keys.get(root)
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', Buffer.from(root, 'utf8'), '', this.label, 32))
      this.#keys.set(root, key)
    }
    return key
  }
}
