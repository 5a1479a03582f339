// Six-digit one-time codes: random, compared in constant time, stored only as a keyed hash
// (HMAC with the server secret) so a database dump does not reveal them.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto'

export function newCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0')
}

export function hashCode(secret: string, code: string): string {
  return createHmac('sha256', secret).update(`code:${code}`).digest('hex')
}

/**
 * Whether `code` is the one hashed as `storedHash` under `secret`, or under any of `secret`'s list
 * (the current secret and, during a rotation, the one it replaced).
 */
export function codeMatches(secret: string | readonly string[], code: string, storedHash: string): boolean {
  const b = Buffer.from(storedHash, 'hex')
  let found = false
  for (const s of typeof secret === 'string' ? [secret] : secret) {
    const a = Buffer.from(hashCode(s, code), 'hex')
    if (a.length === b.length && timingSafeEqual(a, b)) found = true
  }
  return found
}
