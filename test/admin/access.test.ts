// Who may use the admin API: every route in the OpenAPI document refuses a request without a token
// (401), a normal user (403) and an admin whose session has no fresh second factor (403); the
// step-up with the authenticator code (a mailed one only where configured) elevates one session for
// a limited time; an idle session is revoked; the admin role is granted
// and revoked (never from oneself, from a configured admin, or from the last admin); every action
// leaves an audit row, which the audit log lists filtered and paginated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, lastCode, PASSWORD, type TestUser, uniqueEmail } from '../helpers/factories.ts'
import {
  adminEmail,
  adminEnv,
  auditRows,
  createAdmin,
  elevateSession,
  expectError,
  expectOk,
  runId,
  type TestAdmin,
} from './helpers.ts'

let t: TestApp
const run = runId()
let admin: TestUser
let user: TestUser

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run, 0)
  user = await createUser(t)
})
afterAll(async () => {
  await t?.close()
})

const SESSION_ROUTES = new Set(['/v1/admin/session', '/v1/admin/session/code'])
/** routes an operator calls before the session is unlocked: a passkey's unlock, a first passkey */
const PRE_UNLOCK = new Set([
  'POST /v1/admin/session/passkey/options',
  'POST /v1/admin/session/passkey',
  'POST /v1/admin/passkeys/options',
  'POST /v1/admin/passkeys',
])

function adminOperations() {
  const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> }
  const ops: { method: string; url: string; path: string }[] = []
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/admin')) continue
    for (const method of Object.keys(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const url = path.replace(/\{id\}/g, 'aaaaaaaaaaaaaaaaaaaaaaaa').replace(/\{coin\}/g, 'avax')
      ops.push({ method: method.toUpperCase(), url, path })
    }
  }
  return ops
}

describe('every admin route', () => {
  it('is in the OpenAPI document, with 401 and 403 documented', () => {
    const doc = t.app.swagger() as any
    const ops = adminOperations()
    expect(ops.length).toBeGreaterThan(10)
    for (const op of ops) {
      const spec = doc.paths[op.path][op.method.toLowerCase()]
      expect(spec.tags, op.path).toEqual(['admin'])
      expect(Object.keys(spec.responses), op.path).toEqual(expect.arrayContaining(['401', '403']))
    }
  })

  it('refuses no token (401), a normal user (403) and an admin without the second factor (403)', async () => {
    const plain = await createAdmin(t, run, 1, false)
    for (const op of adminOperations()) {
      const send = (token?: string) =>
        t.req({
          method: op.method as 'GET',
          url: op.url,
          ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { payload: { reason: 'a test reason' } }),
          ...(token ? { token } : {}),
        })
      expectError(await send(), 401, 'UNAUTHENTICATED')
      expectError(await send('not-a-token'), 401, 'UNAUTHENTICATED')
      expectError(await send(user.token), 403, 'FORBIDDEN')
      if (SESSION_ROUTES.has(op.path) || PRE_UNLOCK.has(`${op.method} ${op.path}`)) continue
      expectError(await send(plain.token), 403, 'FORBIDDEN')
    }
  })
})

describe('the admin session', () => {
  it('needs an authenticator app: a mailed code unlocks nothing, and without one the answer says to set one up', async () => {
    const a: TestAdmin = await createUser(t, { email: adminEmail(run, 3) })
    const before = expectOk(await t.req({ method: 'GET', url: '/v1/admin/session', token: a.token }))
    expect(before).toMatchObject({
      userId: a.id,
      email: a.email,
      elevated: false,
      secondFactor: 'setup',
      role: 'admin',
      permissions: ['read', 'customer', 'money', 'admin'],
    })
    expectError(
      await t.req({ method: 'POST', url: '/v1/admin/session/code', token: a.token }),
      422,
      'AUTHENTICATOR_REQUIRED',
    )
    // A code mailed for a sensitive action of the account is no admin second factor here.
    expectOk(await t.req({ method: 'POST', url: '/v1/account/2fa/email', token: a.token }))
    const mailed = await lastCode(t, a.email)
    const refused = await t.req({
      method: 'POST',
      url: '/v1/admin/session',
      token: a.token,
      payload: { code: mailed },
    })
    expectError(refused, 403, 'FORBIDDEN')
    expect(refused.json().message).toMatch(/authenticator app/)
    expectError(await t.req({ method: 'GET', url: '/v1/admin/users', token: a.token }), 403, 'FORBIDDEN')
    expect((await auditRows(t, 'admin.session.elevate')).filter((r) => r.actorId === a.id)).toHaveLength(0)
  })

  it('is elevated by the authenticator code, for one session only, until it expires or ends', async () => {
    const a = await createAdmin(t, run, 2, false)
    const before = expectOk(await t.req({ method: 'GET', url: '/v1/admin/session', token: a.token }))
    expect(before).toMatchObject({ userId: a.id, email: a.email, elevated: false, secondFactor: 'totp' })

    // A wrong code is refused and elevates nothing; a mailed code is refused (the app is on).
    expectError(
      await t.req({ method: 'POST', url: '/v1/admin/session/code', token: a.token }),
      422,
      'TWO_FACTOR_USES_APP',
    )
    const code = a.nextCode!()
    const wrong = code === '000000' ? '111111' : '000000'
    expectError(
      await t.req({ method: 'POST', url: '/v1/admin/session', token: a.token, payload: { code: wrong } }),
      400,
      'INVALID_CODE',
    )
    expectError(await t.req({ method: 'GET', url: '/v1/admin/users', token: a.token }), 403, 'FORBIDDEN')

    const data = expectOk(
      await t.req({ method: 'POST', url: '/v1/admin/session', token: a.token, payload: { code } }),
    )
    expect(data).toMatchObject({ elevated: true, method: 'totp' })
    const expires = new Date(data.expiresAt).getTime() - t.clock.now().getTime()
    expect(expires > 15 * 60_000 - 1000 && expires <= 15 * 60_000).toBe(true)
    expectOk(await t.req({ method: 'GET', url: '/v1/admin/users', token: a.token }))
    // The code is used up.
    expectError(
      await t.req({ method: 'POST', url: '/v1/admin/session', token: a.token, payload: { code } }),
      400,
      'INVALID_CODE',
    )

    // Another session of the same admin (signed in with its authenticator) is not elevated.
    const login = await t.req({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: a.email, password: a.password },
    })
    expect(login.json().data.twoFaRequired).toBe(true)
    const second = await t.req({
      method: 'POST',
      url: '/v1/auth/login/2fa',
      payload: { tempToken: login.json().data.tempToken.token, code: a.nextCode!() },
    })
    const other = second.json().data.token as string
    expectError(await t.req({ method: 'GET', url: '/v1/admin/users', token: other }), 403, 'FORBIDDEN')

    // It expires.
    t.clock.advance(15 * 60_000 + 1)
    expectError(await t.req({ method: 'GET', url: '/v1/admin/users', token: a.token }), 403, 'FORBIDDEN')
    expect(expectOk(await t.req({ method: 'GET', url: '/v1/admin/session', token: a.token })).elevated).toBe(
      false,
    )

    // And it ends on request.
    await elevateSession(t, a)
    expectOk(await t.req({ method: 'GET', url: '/v1/admin/users', token: a.token }))
    expectOk(await t.req({ method: 'DELETE', url: '/v1/admin/session', token: a.token }))
    expectError(await t.req({ method: 'GET', url: '/v1/admin/users', token: a.token }), 403, 'FORBIDDEN')

    const rows = (await auditRows(t, 'admin.session.elevate')).filter((r) => r.actorId === a.id)
    expect(rows).toHaveLength(2)
    expect(rows[0]).toMatchObject({ targetType: 'session', reason: 'second factor (totp)' })
  })

  it('takes a mailed code where ADMIN_SECOND_FACTOR=totp-or-email, from an operator without an app', async () => {
    const r = runId()
    const t2 = await createTestApp({ env: { ...adminEnv(r), ADMIN_SECOND_FACTOR: 'totp-or-email' } })
    try {
      const a = await createUser(t2, { email: adminEmail(r, 0) })
      const s = expectOk(await t2.req({ method: 'GET', url: '/v1/admin/session', token: a.token }))
      expect(s.secondFactor).toBe('email')
      expectOk(await t2.req({ method: 'POST', url: '/v1/admin/session/code', token: a.token }))
      const code = await lastCode(t2, a.email)
      const wrong = code === '000000' ? '111111' : '000000'
      expectError(
        await t2.req({ method: 'POST', url: '/v1/admin/session', token: a.token, payload: { code: wrong } }),
        400,
        'INVALID_CODE',
      )
      const data = expectOk(
        await t2.req({ method: 'POST', url: '/v1/admin/session', token: a.token, payload: { code } }),
      )
      expect(data).toMatchObject({ elevated: true, method: 'email' })
      expectOk(await t2.req({ method: 'GET', url: '/v1/admin/users', token: a.token }))
      expectError(
        await t2.req({ method: 'POST', url: '/v1/admin/session', token: a.token, payload: { code } }),
        400,
        'INVALID_CODE',
      )
    } finally {
      await t2.close()
    }
  })

  it('is revoked after ADMIN_IDLE_TIMEOUT_MS without an admin request, the token with it', async () => {
    const r = runId()
    const t2 = await createTestApp({ env: { ...adminEnv(r), ADMIN_IDLE_TIMEOUT_MS: String(3600_000) } })
    try {
      const a = await createAdmin(t2, r, 0)
      const s = expectOk(await t2.req({ method: 'GET', url: '/v1/admin/session', token: a.token }))
      const left = new Date(s.idleExpiresAt).getTime() - t2.clock.now().getTime()
      expect(left > 3590_000 && left <= 3600_000).toBe(true)
      // Activity keeps it alive: two gaps of 59 minutes.
      for (const _ of [1, 2]) {
        t2.clock.advance(59 * 60_000)
        expectOk(await t2.req({ method: 'GET', url: '/v1/admin/session', token: a.token }))
      }
      // Use outside the admin API is no admin activity.
      t2.clock.advance(30 * 60_000)
      expectOk(await t2.req({ method: 'GET', url: '/v1/account', token: a.token }))
      t2.clock.advance(31 * 60_000)
      const idle = await t2.req({ method: 'GET', url: '/v1/admin/session', token: a.token })
      expectError(idle, 401, 'UNAUTHENTICATED')
      expect(idle.json().message).toMatch(/60 minutes without admin activity/)
      expectError(await t2.req({ method: 'GET', url: '/v1/account', token: a.token }), 401, 'UNAUTHENTICATED')
      const session = await t2.database.db
        .selectFrom('sessions')
        .select('revokedAt')
        .where('userId', '=', a.id)
        .executeTakeFirstOrThrow()
      expect(session.revokedAt).not.toBeNull()
      // A new sign-in starts afresh.
      const login = await t2.req({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: a.email, password: a.password },
      })
      const fresh = await t2.req({
        method: 'POST',
        url: '/v1/auth/login/2fa',
        payload: { tempToken: login.json().data.tempToken.token, code: a.nextCode!() },
      })
      const token = fresh.json().data.token as string
      expectOk(await t2.req({ method: 'GET', url: '/v1/admin/session', token }))
    } finally {
      await t2.close()
    }
  })

  it('refuses a normal user even with a right code', async () => {
    await t.req({ method: 'POST', url: '/v1/account/2fa/email', token: user.token })
    const code = await lastCode(t, user.email)
    expectError(
      await t.req({ method: 'POST', url: '/v1/admin/session', token: user.token, payload: { code } }),
      403,
      'FORBIDDEN',
    )
  })
})

describe('the admin role', () => {
  it('is granted and revoked with a reason, never from oneself, a configured admin or the last admin', async () => {
    await elevateSession(t, admin)
    const other = await createUser(t)
    const post = (url: string, payload: object, token = admin.token) =>
      t.req({ method: 'POST', url, payload, token })

    expectError(await post(`/v1/admin/users/${other.id}/admin`, {}), 400, 'VALIDATION_ERROR')
    expectError(await post(`/v1/admin/users/${other.id}/admin`, { reason: '  ' }), 400, 'VALIDATION_ERROR')
    const granted = expectOk(await post(`/v1/admin/users/${other.id}/admin`, { reason: 'new operator' }))
    expect(granted).toMatchObject({ _id: other.id, role: 'admin' })
    expectError(await post(`/v1/admin/users/${other.id}/admin`, { reason: 'again' }), 409, 'ROLE_ALREADY_SET')

    // The granted admin steps up and works.
    await elevateSession(t, other)
    expectOk(await t.req({ method: 'GET', url: '/v1/admin/audit', token: other.token }))

    // Not from oneself, not from a configured admin.
    expectError(
      await post(`/v1/admin/users/${admin.id}/admin/revoke`, { reason: 'x-self' }),
      409,
      'OWN_ACCOUNT_REFUSED',
    )
    expectError(
      await post(`/v1/admin/users/${admin.id}/admin/revoke`, { reason: 'by another' }, other.token),
      409,
      'ROLE_SET_BY_CONFIG',
    )
    expectError(
      await post('/v1/admin/users/aaaaaaaaaaaaaaaaaaaaaaaa/admin', { reason: 'nobody' }),
      404,
      'NOT_FOUND',
    )

    const revoked = expectOk(
      await post(`/v1/admin/users/${other.id}/admin/revoke`, { reason: 'left the team' }),
    )
    expect(revoked.role).toBe('user')
    expectError(
      await post(`/v1/admin/users/${other.id}/admin/revoke`, { reason: 'again' }),
      409,
      'ROLE_NOT_HELD',
    )
    // An account that has not verified its email is given no role.
    const email = uniqueEmail()
    const signUp = await t.req({
      method: 'POST',
      url: '/v1/auth/create-account',
      payload: { firstName: 'New', lastName: 'Comer', email, password: PASSWORD, confirmPassword: PASSWORD },
    })
    expect(signUp.statusCode, signUp.body).toBe(202)
    const unverified = await t.database.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow()
    expectError(
      await post(`/v1/admin/users/${unverified.id}/admin`, { reason: 'too early' }),
      422,
      'ACCOUNT_NOT_VERIFIED',
    )
    // Its elevated session is over at once.
    expectError(await t.req({ method: 'GET', url: '/v1/admin/audit', token: other.token }), 403, 'FORBIDDEN')

    const rows = await auditRows(t)
    expect(rows.filter((r) => r.targetId === other.id).map((r) => [r.action, r.actorId, r.reason])).toEqual([
      ['admin.grant', admin.id, 'new operator'],
      ['admin.revoke', admin.id, 'left the team'],
    ])
    const last = rows.at(-1)!
    expect(last.requestId).toEqual(expect.any(String))
    expect(last.ip).toEqual(expect.any(String))
  })

  it('keeps the last admin', async () => {
    // A fresh app whose only admin is the configured one: a granted admin cannot take its role,
    // and after the configured admin's own revocation of the granted one, the last one stays.
    const r = runId()
    const t2 = await createTestApp({ env: { ADMIN_EMAILS: `solo.${r}@ops.example.com` } })
    try {
      const solo = await createUser(t2, { email: `solo.${r}@ops.example.com` })
      await elevateSession(t2, solo)
      const helper = await createUser(t2)
      expectOk(
        await t2.req({
          method: 'POST',
          url: `/v1/admin/users/${helper.id}/admin`,
          token: solo.token,
          payload: { reason: 'second admin' },
        }),
      )
      await elevateSession(t2, helper)
      // The helper suspends nobody who is the last admin, and cannot revoke the configured one.
      expectError(
        await t2.req({
          method: 'POST',
          url: `/v1/admin/users/${solo.id}/admin/revoke`,
          token: helper.token,
          payload: { reason: 'take over' },
        }),
        409,
        'ROLE_SET_BY_CONFIG',
      )
      expectOk(
        await t2.req({
          method: 'POST',
          url: `/v1/admin/users/${helper.id}/admin/revoke`,
          token: solo.token,
          payload: { reason: 'done' },
        }),
      )
      const admins = await t2.database.db
        .selectFrom('users')
        .select('id')
        .where('role', '=', 'admin')
        .execute()
      expect(admins.map((a) => a.id)).toEqual([solo.id])
    } finally {
      await t2.close()
    }
  })
})

describe('the audit log', () => {
  it('filters by actor, action, target and time range, newest first, paginated', async () => {
    await elevateSession(t, admin)
    const target = await createUser(t)
    const before = t.clock.now().toISOString()
    for (const action of ['suspend', 'unsuspend', 'suspend'])
      expectOk(
        await t.req({
          method: 'POST',
          url: `/v1/admin/users/${target.id}/${action}`,
          token: admin.token,
          payload: { reason: `audit ${action}` },
        }),
      )
    const list = (qs: string) => t.req({ method: 'GET', url: `/v1/admin/audit?${qs}`, token: admin.token })
    const byTarget = expectOk(await list(`target=${target.id}`))
    expect(byTarget.total).toBe(3)
    expect(byTarget.data.map((r: any) => r.action)).toEqual(
      ['user.suspend', 'user.unsuspend', 'user.suspend'].reverse(),
    )
    expect(byTarget.data[0]).toMatchObject({
      actorId: admin.id,
      actorEmail: admin.email,
      targetType: 'user',
      targetId: target.id,
      reason: 'audit suspend',
      details: {},
    })
    const page = expectOk(await list(`target=${target.id}&limit=2&page=2`))
    expect(page).toMatchObject({ page: 2, pages: 2, limit: 2, total: 3 })
    expect(page.data).toHaveLength(1)
    expect(expectOk(await list(`target=${target.id}&action=user.unsuspend`)).total).toBe(1)
    expect(expectOk(await list(`actor=${admin.id}&target=${target.id}`)).total).toBe(3)
    expect(expectOk(await list(`actor=${user.id}`)).total).toBe(0)
    expect(expectOk(await list(`target=${target.id}&from=${encodeURIComponent(before)}`)).total).toBe(3)
    expect(expectOk(await list(`target=${target.id}&to=${encodeURIComponent(before)}`)).total).toBe(0)
    expectError(await list('from=yesterday'), 400, 'VALIDATION_ERROR')
    expectError(await list('limit=101'), 400, 'VALIDATION_ERROR')
    expectError(await list('colour=red'), 400, 'VALIDATION_ERROR')
    expectError(
      await list(`from=${encodeURIComponent('2030-01-01T00:00:00.000Z')}&to=${encodeURIComponent(before)}`),
      400,
      'VALIDATION_ERROR',
    )
  })
})
