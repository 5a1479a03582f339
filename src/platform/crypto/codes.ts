// Six-digit one-time codes: random, compared in constant time, stored only as a keyed hash
// (HMAC with the server secret) so a database dump does not reveal them.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto'

export function newCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0')
}

export function hashCode(secret: string, code: string): string {
  return createHmac('sha256', secret).update(`code:${code}`).digest('hex')
}

export function codeMatches(secret: string, code: string, storedHash: string): boolean {
  const a = Buffer.from(hashCode(secret, code), 'hex')
  const b = Buffer.from(storedHash, 'hex')
  return a.length === b.length && timingSafeEqual(a, b)
}
