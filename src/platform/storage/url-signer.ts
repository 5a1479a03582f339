// HMAC-signed, expiring object URLs for the disk store. The key is derived from the JWT secret
// under its own label, so a file signature can never be replayed as a token signature or the
// reverse.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Clock } from '../clock.ts'

export type SignatureCheck = 'valid' | 'expired' | 'invalid'

export class UrlSigner {
  readonly #key: Buffer

  constructor(
    secret: string,
    private readonly clock: Clock,
  ) {
    this.#key = createHmac('sha256', secret).update('workpay/file-url-signing/v1').digest()
  }

  #mac(key: string, expires: number): Buffer {
    return createHmac('sha256', this.#key).update(`GET\n${key}\n${expires}`).digest()
  }

  /** Query parameters granting a GET of `key` for `ttlSeconds` from the clock's now. */
  sign(key: string, ttlSeconds: number): { expires: number; signature: string } {
    const expires = Math.floor(this.clock.now().getTime() / 1000) + ttlSeconds
    return { expires, signature: this.#mac(key, expires).toString('base64url') }
  }

  verify(key: string, expires: unknown, signature: unknown): SignatureCheck {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires)) return 'invalid'
    if (typeof signature !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return 'invalid'
    const expected = this.#mac(key, Number(expires))
    const given = Buffer.from(signature, 'base64url')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid'
    // Checked after the MAC so that only an authentic URL is told it has expired.
    return this.clock.now().getTime() >= Number(expires) * 1000 ? 'expired' : 'valid'
  }
}
