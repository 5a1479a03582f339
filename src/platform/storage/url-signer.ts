// HMAC-signed, expiring object URLs for the disk store. The key is derived from the JWT secret
// under its own label, so a file signature can never be replayed as a token signature or the
// reverse. During a rotation of that secret, URLs signed with the previous one stay valid until
// they expire (or the rotation's window closes, whichever is first).
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Clock } from '../clock.ts'
import { SecretRing, type SecretRotation } from '../crypto/secret-ring.ts'

export type SignatureCheck = 'valid' | 'expired' | 'invalid'

const derive = (secret: string) => createHmac('sha256', secret).update('workpay/file-url-signing/v1').digest()

export class UrlSigner {
  readonly #ring: SecretRing
  readonly #keys = new Map<string, Buffer>()

  constructor(
    secret: string | SecretRotation,
    private readonly clock: Clock,
  ) {
    this.#ring = new SecretRing(typeof secret === 'string' ? { current: secret } : secret, clock)
  }

  #mac(key: string, expires: number, secret = this.#ring.current): Buffer {
    let derived = this.#keys.get(secret)
    if (!derived) {
      derived = derive(secret)
      this.#keys.set(secret, derived)
    }
    return createHmac('sha256', derived).update(`GET\n${key}\n${expires}`).digest()
  }

  /** Query parameters granting a GET of `key` for `ttlSeconds` from the clock's now. */
  sign(key: string, ttlSeconds: number): { expires: number; signature: string } {
    const expires = Math.floor(this.clock.now().getTime() / 1000) + ttlSeconds
    return { expires, signature: this.#mac(key, expires).toString('base64url') }
  }

  verify(key: string, expires: unknown, signature: unknown): SignatureCheck {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires)) return 'invalid'
    if (typeof signature !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return 'invalid'
    const given = Buffer.from(signature, 'base64url')
    const signedBy = (secret: string) => {
      const expected = this.#mac(key, Number(expires), secret)
      return given.length === expected.length && timingSafeEqual(given, expected)
    }
    if (!this.#ring.verifying().some(signedBy)) return 'invalid'
    // Checked after the MAC so that only an authentic URL is told it has expired.
    return this.clock.now().getTime() >= Number(expires) * 1000 ? 'expired' : 'valid'
  }
}
