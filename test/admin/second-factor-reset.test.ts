// An admin clears another operator's second factor (a lost phone, a passkey to rotate): the
// authenticator app, the passkeys, or both; every session of the account ends in the same
// transaction; audited. Only an admin, never for oneself; what a second factor the account lacks
// cannot be cleared. Then the operator signs in again and sets up a new factor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  adminEnv,
  auditRows,
  codesOf,
  createAdmin,
  elevateSession,
  expectError,
  expectOk,
  runId,
  type TestAdmin,
  turnOnTotp,
} from './helpers.ts'
import { SoftAuthenticator } from './soft-authenticator.ts'

const ORIGIN = 'http://localhost:4011'
const run = runId()
let t: TestApp
let admin: TestAdmin
const staff: Partial<Record<'finance' | 'support', TestAdmin>> = {}
let user: TestUser
const device = new SoftAuthenticator(ORIGIN, 'localhost')

const post = (url: string, token: string, payload: object = {}) =>
  t.req({ method: 'POST', url, token, payload })
const reset = (id: string, token: string, body: object = {}) =>
  post(`/v1/admin/users/${id}/second-factor/reset`, token, { reason: 'ticket 812: phone lost', ...body })

async function operator(role: 'admin' | 'finance' | 'support'): Promise<TestAdmin> {
  const u: TestAdmin = await createUser(t)
  expectOk(await post(`/v1/admin/users/${u.id}/role`, admin.token, { role, reason: `joined ${role}` }))
  await turnOnTotp(t, u)
  await elevateSession(t, u)
  return u
}

async function addPasskey(who: TestUser) {
  const options = expectOk(await post('/v1/admin/passkeys/options', who.token))
  const made = device.create(options)
  expectOk(await post('/v1/admin/passkeys', who.token, { name: 'Phone', credential: made.json }))
}

beforeAll(async () => {
  t = await createTestApp({
    env: { ...adminEnv(run), WEBAUTHN_ORIGIN: ORIGIN, WEBAUTHN_RP_ID: 'localhost' },
  })
  admin = await createAdmin(t, run, 0)
  staff.finance = await operator('finance')
  staff.support = await operator('support')
  user = await createUser(t)
})
afterAll(() => t?.close())

describe('POST /v1/admin/users/:id/second-factor/reset', () => {
  it('clears the authenticator app and the passkeys, ends every session, audited', async () => {
    const target = await operator('finance')
    await addPasskey(target)
    await addPasskey(target)
    const out = expectOk(await reset(target.id, admin.token))
    expect(out).toEqual({ userId: target.id, totpCleared: true, passkeysRemoved: 2, sessionsEnded: true })
    // the target's token is refused everywhere: it signs in again
    expectError(
      await t.req({ method: 'GET', url: '/v1/admin/session', token: target.token }),
      401,
      'UNAUTHENTICATED',
    )
    const account = expectOk(
      await t.req({ method: 'GET', url: `/v1/admin/users/${target.id}`, token: admin.token }),
    )
    expect(account.twoFaEnabled).toBe(false)
    expect(
      await t.database.db.selectFrom('adminPasskeys').select('id').where('userId', '=', target.id).execute(),
    ).toEqual([])
    expect((await auditRows(t, 'user.second-factor.reset')).at(-1)).toMatchObject({
      actorId: admin.id,
      targetType: 'user',
      targetId: target.id,
      reason: 'ticket 812: phone lost',
      details: { factors: ['totp', 'passkeys'], totpCleared: true, passkeysRemoved: 2 },
    })
    // signed in again (no two-factor step now), the console asks to set up a factor
    const login = expectOk(
      await t.req({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: target.email, password: target.password },
      }),
    )
    expect(login.twoFaRequired ?? false).toBe(false)
    const s = expectOk(await t.req({ method: 'GET', url: '/v1/admin/session', token: login.token }))
    expect(s).toMatchObject({ elevated: false, secondFactor: 'setup', passkeys: 0 })
  })

  it('clears only what is asked: the passkeys, keeping the authenticator app', async () => {
    const target = await operator('support')
    await addPasskey(target)
    const out = expectOk(await reset(target.id, admin.token, { factors: ['passkeys'] }))
    expect(out).toMatchObject({ totpCleared: false, passkeysRemoved: 1 })
    const account = expectOk(
      await t.req({ method: 'GET', url: `/v1/admin/users/${target.id}`, token: admin.token }),
    )
    expect(account.twoFaEnabled).toBe(true)
    // nothing left of what is asked: 409, no audit row
    const rows = (await auditRows(t, 'user.second-factor.reset')).length
    expectError(await reset(target.id, admin.token, { factors: ['passkeys'] }), 409, 'NO_SECOND_FACTOR')
    expectError(await reset(user.id, admin.token), 409, 'NO_SECOND_FACTOR')
    expect(await auditRows(t, 'user.second-factor.reset')).toHaveLength(rows)
  })

  it('with the app cleared and a passkey kept, the operator unlocks with the passkey only', async () => {
    const target = await operator('finance')
    const options = expectOk(await post('/v1/admin/passkeys/options', target.token))
    const made = device.create(options)
    expectOk(await post('/v1/admin/passkeys', target.token, { name: 'Laptop', credential: made.json }))
    expectOk(await reset(target.id, admin.token, { factors: ['totp'] }))
    const login = expectOk(
      await t.req({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: target.email, password: target.password },
      }),
    )
    const s = expectOk(await t.req({ method: 'GET', url: '/v1/admin/session', token: login.token }))
    expect(s).toMatchObject({ elevated: false, secondFactor: 'passkey', passkeys: 1 })
    // a code unlocks nothing now, mailed or not
    expectError(await post('/v1/admin/session', login.token, { code: '123456' }), 403, 'FORBIDDEN')
    expectError(await post('/v1/admin/session/code', login.token), 422, 'AUTHENTICATOR_REQUIRED')
    const challenge = expectOk(await post('/v1/admin/session/passkey/options', login.token)).challenge
    const unlocked = expectOk(
      await post('/v1/admin/session/passkey', login.token, {
        credential: device.get(made.credential, challenge),
      }),
    )
    expect(unlocked).toMatchObject({ elevated: true, method: 'passkey', role: 'finance' })
  })

  it('with a passkey kept, setting up two-factor again needs the session unlocked with the passkey', async () => {
    const target = await operator('support')
    const options = expectOk(await post('/v1/admin/passkeys/options', target.token))
    const made = device.create(options)
    expectOk(await post('/v1/admin/passkeys', target.token, { name: 'Key', credential: made.json }))
    expectOk(await reset(target.id, admin.token, { factors: ['totp'] }))
    const token = expectOk(
      await t.req({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: target.email, password: target.password },
      }),
    ).token as string
    // the access token alone adds no factor: neither a new set-up nor the confirmation of one
    const setUp = () => post('/v1/account/initiate/2fa', token, { type: 'google_auth' })
    expectError(await setUp(), 403, 'PASSKEY_UNLOCK_REQUIRED')
    expectError(
      await post('/v1/account/initiate/2fa', token, { type: 'email' }),
      403,
      'PASSKEY_UNLOCK_REQUIRED',
    )
    expectError(
      await post('/v1/account/activate/2fa', token, { code: '123456' }),
      403,
      'PASSKEY_UNLOCK_REQUIRED',
    )
    const challenge = expectOk(await post('/v1/admin/session/passkey/options', token)).challenge
    expectOk(
      await post('/v1/admin/session/passkey', token, { credential: device.get(made.credential, challenge) }),
    )
    const init = await setUp()
    expect(init.statusCode, init.body).toBe(202)
    const code = codesOf(t, init.json().data.secret)
    expectOk(await post('/v1/account/activate/2fa', token, { code: code() }))
    const s = expectOk(await t.req({ method: 'GET', url: '/v1/admin/session', token }))
    expect(s).toMatchObject({ secondFactor: 'totp', passkeys: 1 })
    // an operator set back to a user keeps the passkey, which unlocks nothing now: the gate is off
    const former = await operator('support')
    const formerKey = device.create(expectOk(await post('/v1/admin/passkeys/options', former.token)))
    expectOk(await post('/v1/admin/passkeys', former.token, { name: 'Old key', credential: formerKey.json }))
    expectOk(await reset(former.id, admin.token, { factors: ['totp'] }))
    expectOk(
      await post(`/v1/admin/users/${former.id}/role`, admin.token, { role: 'user', reason: 'left ops' }),
    )
    const formerToken = expectOk(
      await t.req({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: former.email, password: former.password },
      }),
    ).token as string
    const again = await post('/v1/account/initiate/2fa', formerToken, { type: 'google_auth' })
    expect(again.statusCode, again.body).toBe(202)
    // an account without a passkey sets up two-factor with its token, as before
    const plain = await createUser(t)
    const res = await post('/v1/account/initiate/2fa', plain.token, { type: 'google_auth' })
    expect(res.statusCode, res.body).toBe(202)
  })

  it('only an admin, never for oneself; an unknown account is 404; bad bodies are 400', async () => {
    const target = await operator('support')
    for (const role of ['finance', 'support'] as const)
      expectError(await reset(target.id, staff[role]!.token), 403, 'FORBIDDEN')
    expectError(await reset(target.id, user.token), 403, 'FORBIDDEN')
    expectError(
      await t.req({ method: 'POST', url: `/v1/admin/users/${target.id}/second-factor/reset`, payload: {} }),
      401,
      'UNAUTHENTICATED',
    )
    expectError(await reset(admin.id, admin.token), 409, 'OWN_ACCOUNT_REFUSED')
    expectError(await reset('0123456789abcdef01234567', admin.token), 404, 'NOT_FOUND')
    expectError(await reset(target.id, admin.token, { factors: [] }), 400, 'VALIDATION_ERROR')
    expectError(await reset(target.id, admin.token, { reason: '' }), 400, 'VALIDATION_ERROR')
    // an admin whose session is not unlocked
    const locked = await createAdmin(t, run, 1, false)
    expectError(await reset(target.id, locked.token), 403, 'FORBIDDEN')
    // none of these touched the target
    const account = expectOk(
      await t.req({ method: 'GET', url: `/v1/admin/users/${target.id}`, token: admin.token }),
    )
    expect(account.twoFaEnabled).toBe(true)
    expect((await t.req({ method: 'GET', url: '/v1/admin/session', token: target.token })).statusCode).toBe(
      200,
    )
  })
})
