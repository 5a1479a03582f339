// HMAC-signed, expiring object URLs for the disk store. The key is the URLs' own, derived from
// URL_SIGNING_SECRET under its own label (so a file signature can never be replayed as a token
// or a code, nor the reverse), and each URL names it (`kid`): rotating JWT_SECRET or CODES_SECRET
// never touches a URL, and during a rotation of URL_SIGNING_SECRET the URLs signed with the
// previous one stay valid until they expire (or the rotation's window closes, whichever is first).
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Clock } from '../clock.ts'
import { DerivedKeyRing } from '../crypto/key-ring.ts'
import type { SecretRotation } from '../crypto/secret-ring.ts'

/** `unknown-key`: the URL names a key id that is not (or no longer) accepted. */
export type SignatureCheck = 'valid' | 'expired' | 'invalid' | 'unknown-key'

/** The label the URL-signing key is derived under. */
export const URL_SIGNING_KEY_LABEL = 'workpay/file-url-signing/v2'

const KID = /^[A-Za-z0-9_-]{8}$/

export class UrlSigner {
  readonly #ring: DerivedKeyRing

  constructor(
    secret: string | SecretRotation,
    private readonly clock: Clock,
  ) {
    const rotation = typeof secret === 'string' ? { current: secret } : secret
    this.#ring = new DerivedKeyRing(rotation, URL_SIGNING_KEY_LABEL, clock)
  }

  #mac(derived: Buffer, key: string, expires: number): Buffer {
    return createHmac('sha256', derived).update(`GET\n${key}\n${expires}`).digest()
  }

  /** Query parameters granting a GET of `key` for `ttlSeconds` from the clock's now. */
  sign(key: string, ttlSeconds: number): { expires: number; signature: string; kid: string } {
    const expires = Math.floor(this.clock.now().getTime() / 1000) + ttlSeconds
    const signature = this.#mac(this.#ring.current, key, expires).toString('base64url')
    return { expires, signature, kid: this.#ring.currentId }
  }

  verify(key: string, expires: unknown, signature: unknown, kid: unknown): SignatureCheck {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires)) return 'invalid'
    if (typeof signature !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return 'invalid'
    if (typeof kid !== 'string' || !KID.test(kid)) return 'invalid'
    const derived = this.#ring.key(kid)
    if (!derived) return 'unknown-key'
    const given = Buffer.from(signature, 'base64url')
    const expected = this.#mac(derived, key, Number(expires))
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid'
    // Checked after the MAC so that only an authentic URL is told it has expired.
    return this.clock.now().getTime() >= Number(expires) * 1000 ? 'expired' : 'valid'
  }
}
