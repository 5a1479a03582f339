// Shared helpers of the account tests.
import { createHmac, randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'

export { expectError } from '../helpers/errors.ts'

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** A word of its own: `prefix` and eight hex digits. */
export const word = (prefix = 'w') => `${prefix}${randomBytes(4).toString('hex')}`

/** The keys of the full account, as GET /v1/account and PATCH /v1/account/update answer it. */
export const FULL_KEYS = [
  '__v',
  '_id',
  'accountType',
  'achievements',
  'bgImage',
  'createdAt',
  'email',
  'emailVerified',
  'emailVerifiedAt',
  'firstName',
  'isPrivate',
  'isUserNameUpdated',
  'isVerified',
  'kyc',
  'kycStatus',
  'lastName',
  'loggedInAt',
  'meta',
  'profile',
  'profileCompleteness',
  'profileImage',
  'referralCode',
  'role',
  'score',
  'socials',
  'socket',
  'status',
  'twoFa',
  'type',
  'updatedAt',
  'userName',
  'walletGenerated',
  'web3Onboard',
]

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

/** A different 6-digit code than `code`. */
export const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')

/** Authenticator-app helpers on the app `app()` answers when they are called. */
export function authenticator(app: () => TestApp) {
  /** A code computed from the otpauth URI alone, by the independent implementation. */
  function codeFromUri(uri: string, atMs = app().clock.now().getTime()) {
    const url = new URL(uri)
    const p = url.searchParams
    return totpAt(
      base32Decode(p.get('secret')!),
      atMs,
      Number(p.get('digits') ?? 6),
      (p.get('algorithm') ?? 'SHA1').toLowerCase(),
      Number(p.get('period') ?? 30),
    )
  }

  /** Turns google_auth on for `u`, then moves the clock one step on; answers the otpauth URI. */
  async function enableGoogle(u: TestUser) {
    const t = app()
    const a = api(t)
    const init = expectOk(await a.post('/v1/account/initiate/2fa', { type: 'google_auth' }, u.token), 202)
    expectOk(await a.post('/v1/account/activate/2fa', { code: codeFromUri(init.otpauthUrl) }, u.token))
    t.clock.advance(30_000)
    return init.otpauthUrl as string
  }

  return { codeFromUri, enableGoogle }
}

/** PATCH /v1/account/update as `u`, on the app `app()` answers when it is called. */
export const profileUpdate = (app: () => TestApp) => (u: TestUser, body: unknown) =>
  api(app()).patch('/v1/account/update', body, u.token)

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
