// Authenticator codes (RFC 6238): the otpauth description of a secret and the check of a code
// against the steps around now, in constant time.
import { timingSafeEqual } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'

/** TOTP parameters: SHA-1, 6 digits, 30-second steps, one step of drift either way. */
export const TOTP_PERIOD = 30
export const TOTP_DIGITS = 6
export const TOTP_WINDOW = 1
const TOTP_ISSUER = 'WorkPay'

export function totp(secretBase32: string, label: string) {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD,
    secret: Secret.fromBase32(secretBase32),
  })
}

/** The time step (within ±TOTP_WINDOW of now) whose code is `code`, or undefined. */
export function matchTotpStep(secretBase32: string, code: string, nowMs: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return
  const secret = Secret.fromBase32(secretBase32)
  const current = Math.floor(nowMs / 1000 / TOTP_PERIOD)
  let found: number | undefined
  for (let d = -TOTP_WINDOW; d <= TOTP_WINDOW; d++) {
    const step = current + d
    const expected = TOTP.generate({
      secret,
      algorithm: 'SHA1',
      digits: TOTP_DIGITS,
      period: TOTP_PERIOD,
      timestamp: step * TOTP_PERIOD * 1000,
    })
    // Compare every candidate in constant time; keep the latest matching step.
    if (timingSafeEqual(Buffer.from(expected), Buffer.from(code))) found = step
  }
  return found
}

/** A new random secret (160 bits), base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32
}
