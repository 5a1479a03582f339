// Shared steps of the admin tests: an app whose ADMIN_EMAILS names the admins the tests create, an
// admin with an authenticator app (TOTP turned on through the account's real two-factor routes) and
// an elevated session, and envelope checks.
import { Secret, TOTP } from 'otpauth'
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import { createUser, lastCode, type TestUser, uniqueEmail } from '../helpers/factories.ts'

export { expectError } from '../helpers/errors.ts'

export const ADMIN_DOMAIN = 'ops.example.com'
/** ADMIN_EMAILS for a test app: the admins the tests make with `createAdmin(t, n)`. */
export const adminEnv = (run: string) => ({
  ADMIN_EMAILS: Array.from({ length: 4 }, (_, i) => adminEmail(run, i)).join(','),
})
export const adminEmail = (run: string, n: number) => `admin${n}.${run}@${ADMIN_DOMAIN}`

/** An operator with an authenticator app: `nextCode()` is a code the service has not seen used. */
export interface TestAdmin extends TestUser {
  totpSecret?: string
  nextCode?: () => string
}

export async function createAdmin(t: TestApp, run: string, n = 0, elevate = true): Promise<TestAdmin> {
  const admin: TestAdmin = await createUser(t, { email: adminEmail(run, n) })
  await turnOnTotp(t, admin)
  if (elevate) await elevateSession(t, admin)
  return admin
}

const STEP_MS = 30_000

/**
 * Turns on the account's authenticator app (POST /v1/account/initiate/2fa, then activate with a
 * code) and gives `user` a `nextCode()` (see codesOf).
 */
export async function turnOnTotp(t: TestApp, user: TestAdmin): Promise<void> {
  const init = await t.req({
    method: 'POST',
    url: '/v1/account/initiate/2fa',
    token: user.token,
    payload: { type: 'google_auth' },
  })
  expect(init.statusCode, init.body).toBe(202)
  const secret = init.json().data.secret as string
  user.totpSecret = secret
  user.nextCode = codesOf(t, secret)
  const on = await t.req({
    method: 'POST',
    url: '/v1/account/activate/2fa',
    token: user.token,
    payload: { code: user.nextCode() },
  })
  expect(on.statusCode, on.body).toBe(200)
}

/**
 * An authenticator app for `secret` on the test app's clock: each call answers the code of a later
 * 30-second step than the last (the service takes each step once), the current step or the next,
 * moving the clock on to the step before when the next unused one is further ahead.
 */
export function codesOf(t: TestApp, secret: string): () => string {
  let last = -1
  return () => {
    const now = t.clock.now().getTime()
    const current = Math.floor(now / STEP_MS)
    // Never an older step than the current one: a step boundary passing before the service checks
    // the code leaves it within the one-step window.
    const step = Math.max(last + 1, current)
    if (step > current + 1) t.clock.advance((step - 1) * STEP_MS - now)
    last = step
    return totpCode(secret, step * STEP_MS)
  }
}

/** The authenticator code of `secretBase32` at `atMs` (RFC 6238: SHA-1, 6 digits, 30 s). */
export function totpCode(secretBase32: string, atMs: number): string {
  return TOTP.generate({
    secret: Secret.fromBase32(secretBase32),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    timestamp: atMs,
  })
}

/**
 * Steps the operator's session up: with the authenticator app (turned on first when the service
 * asks for it), or with a mailed code where ADMIN_SECOND_FACTOR=totp-or-email lets one without it.
 */
export async function elevateSession(t: TestApp, admin: TestAdmin) {
  let code: string
  if (admin.nextCode) code = admin.nextCode()
  else {
    const s = await t.req({ method: 'GET', url: '/v1/admin/session', token: admin.token })
    expect(s.statusCode, s.body).toBe(200)
    if (s.json().data.secondFactor === 'setup') {
      await turnOnTotp(t, admin)
      code = admin.nextCode!()
    } else {
      const sent = await t.req({ method: 'POST', url: '/v1/admin/session/code', token: admin.token })
      expect(sent.statusCode, sent.body).toBe(200)
      code = await lastCode(t, admin.email)
    }
  }
  const res = await t.req({ method: 'POST', url: '/v1/admin/session', token: admin.token, payload: { code } })
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json().data.elevated).toBe(true)
}

export function expectOk(res: { statusCode: number; body: string; json(): any }, status = 200) {
  expect(res.statusCode, res.body).toBe(status)
  const body = res.json()
  expect(body.status).toBe('success')
  return body.data
}

export function auditRows(t: TestApp, action?: string) {
  let q = t.database.db.selectFrom('adminAudit').selectAll().orderBy('createdAt').orderBy('id')
  if (action) q = q.where('action', '=', action)
  return q.execute()
}

export const runId = () => Math.random().toString(36).slice(2, 8)
export { uniqueEmail }
