// Six-digit one-time codes: random, compared in constant time, stored only as a keyed hash so a
// database dump does not reveal them. The key is the codes' own (derived from CODES_SECRET, see
// key-ring.ts), and the stored value names it (`<key id>.<hex>`), so rotating JWT_SECRET never
// touches a pending code and rotating CODES_SECRET keeps the codes of the previous key readable.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto'
import type { DerivedKeyRing } from './key-ring.ts'

/** The label the codes' key is derived under. */
export const CODES_KEY_LABEL = 'workpay/one-time-codes/v1'

export function newCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0')
}

/** The hash of a code under a secret, as stored before key ids (HMAC keyed with JWT_SECRET). */
export function hashCode(secret: string | Buffer, code: string): string {
  return createHmac('sha256', secret).update(`code:${code}`).digest('hex')
}

const equalHex = (a: string, b: string) => {
  const x = Buffer.from(a, 'hex')
  const y = Buffer.from(b, 'hex')
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y)
}

/**
 * Whether `code` is the one hashed as `storedHash` under `secret`, or under any of `secret`'s list
 * (the current secret and, during a rotation, the one it replaced).
 */
export function codeMatches(secret: string | readonly string[], code: string, storedHash: string): boolean {
  let found = false
  for (const s of typeof secret === 'string' ? [secret] : secret)
    if (equalHex(hashCode(s, code), storedHash)) found = true
  return found
}

export class CodeHasher {
  /** `legacy`: the secrets a hash stored without a key id was made with (JWT_SECRET and the one it
   * replaced), for the codes pending when key ids came in (they expire within minutes). */
  constructor(
    private readonly ring: DerivedKeyRing,
    private readonly legacy: () => readonly string[],
  ) {}

  /** `<key id>.<hex HMAC>` under the current key. */
  hash(code: string): string {
    return `${this.ring.currentId}.${hashCode(this.ring.current, code)}`
  }

  /** Whether `code` is the one `stored` names; a key id no longer (or never) accepted never matches. */
  matches(code: string, stored: string): boolean {
    const dot = stored.indexOf('.')
    if (dot < 0) return codeMatches(this.legacy(), code, stored)
    const key = this.ring.key(stored.slice(0, dot))
    // Compared anyway under the current key, so an unknown key id takes as long as a known one.
    const expected = hashCode(key ?? this.ring.current, code)
    return equalHex(expected, stored.slice(dot + 1)) && key !== undefined
  }
}
