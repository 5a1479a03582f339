// Shared helpers of the account tests.
import { createHmac } from 'node:crypto'
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.ts'

export function expectError(res: { statusCode: number; json(): any }, status: number, code: string) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status)
  const body = res.json()
  expect(body.status).toBe('error')
  expect(typeof body.message).toBe('string')
  expect(body.data.code).toBe(code)
}

export function expectOk(res: { statusCode: number; body: string; json(): any }, status = 200) {
  expect(res.statusCode, res.body).toBe(status)
  const body = res.json()
  expect(body.status).toBe('success')
  expect(typeof body.message).toBe('string')
  return body.data
}

export const api = (t: TestApp) => ({
  get: (url: string, token?: string) => t.req({ method: 'GET', url, ...(token ? { token } : {}) }),
  post: (url: string, payload?: unknown, token?: string) =>
    t.req({
      method: 'POST',
      url,
      ...(payload !== undefined ? { payload: payload as object } : {}),
      ...(token ? { token } : {}),
    }),
  patch: (url: string, payload: unknown, token?: string) =>
    t.req({ method: 'PATCH', url, payload: payload as object, ...(token ? { token } : {}) }),
  put: (url: string, payload: unknown, token?: string) =>
    t.req({ method: 'PUT', url, payload: payload as object, ...(token ? { token } : {}) }),
})

// An independent RFC 4226/6238 implementation over node:crypto, so the server's TOTP is checked
// against code that shares nothing with it.
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

export function base32Decode(s: string): Buffer {
  const clean = s.replace(/=+$/, '').toUpperCase()
  let bits = 0
  let value = 0
  const out: number[] = []
  for (const ch of clean) {
    const idx = B32.indexOf(ch)
    if (idx < 0) throw new Error(`bad base32 character ${ch}`)
    value = (value << 5) | idx
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return Buffer.from(out)
}

export function hotp(key: Buffer, counter: number, digits = 6, algorithm = 'sha1'): string {
  const msg = Buffer.alloc(8)
  msg.writeBigUInt64BE(BigInt(counter))
  const mac = createHmac(algorithm, key).update(msg).digest()
  const offset = mac[mac.length - 1]! & 0x0f
  const bin = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits
  return bin.toString().padStart(digits, '0')
}

export function totpAt(key: Buffer, unixMs: number, digits = 6, algorithm = 'sha1', period = 30) {
  return hotp(key, Math.floor(unixMs / 1000 / period), digits, algorithm)
}

/** Registers an account (optionally with a referral code); verifies it unless told not to. */
export async function signUp(
  t: TestApp,
  opts: {
    email?: string
    firstName?: string
    lastName?: string
    referralCode?: string
    verify?: boolean
  } = {},
) {
  const { PASSWORD, uniqueEmail, lastCode } = await import('../helpers/factories.ts')
  const email = opts.email ?? uniqueEmail('acct')
  const reg = await t.req({
    method: 'POST',
    url: '/v1/auth/create-account',
    payload: {
      firstName: opts.firstName ?? 'Test',
      lastName: opts.lastName ?? 'User',
      email,
      password: PASSWORD,
      confirmPassword: PASSWORD,
      ...(opts.referralCode ? { referralCode: opts.referralCode } : {}),
    },
  })
  if (reg.statusCode !== 202) throw new Error(`register failed: ${reg.body}`)
  const row = await t.database.db
    .selectFrom('users')
    .select('id')
    .where('email', '=', email.toLowerCase())
    .executeTakeFirstOrThrow()
  if (opts.verify === false) return { id: row.id, email, password: PASSWORD, token: '' }
  const code = await lastCode(t, email)
  const ver = await t.req({
    method: 'POST',
    url: '/v1/auth/account/verify',
    payload: { token: code, tempToken: reg.json().data.tempToken.token },
  })
  if (ver.statusCode !== 200) throw new Error(`verify failed: ${ver.body}`)
  return { id: row.id, email, password: PASSWORD, token: ver.json().data.token as string }
}

export async function login(t: TestApp, email: string, password: string) {
  return t.req({ method: 'POST', url: '/v1/auth/login', payload: { email, password } })
}
