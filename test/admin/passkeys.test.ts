// Operators' passkeys through the API, with a software authenticator (real P-256 keys and WebAuthn
// answers, verified by the service's @simplewebauthn/server): adding one from an unlocked session
// or, the first time, with the authenticator code; unlocking the session with it; and every refusal:
// a challenge never issued, replayed, expired, of another session or of the other ceremony; another
// account's passkey; a wrong origin or RP ID; no user verification; a counter that did not move on;
// callers who are not operators. The browser test (test/browser/admin-passkeys.test.ts) does the
// same in Chromium with its virtual authenticator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId, type TestAdmin } from './helpers.ts'
import { SoftAuthenticator, type SoftCredential } from './soft-authenticator.ts'

const ORIGIN = 'http://localhost:4010'
const run = runId()
let t: TestApp
let admin: TestAdmin
let other: TestAdmin
let user: TestUser
const device = new SoftAuthenticator(ORIGIN, 'localhost')

beforeAll(async () => {
  t = await createTestApp({
    env: { ...adminEnv(run), WEBAUTHN_ORIGIN: ORIGIN, WEBAUTHN_RP_ID: 'localhost' },
  })
  admin = await createAdmin(t, run, 0)
  other = await createAdmin(t, run, 1)
  user = await createUser(t)
})
afterAll(() => t?.close())

const post = (url: string, token: string, payload: object = {}) =>
  t.req({ method: 'POST', url, token, payload })
const session = async (token: string) =>
  expectOk(await t.req({ method: 'GET', url: '/v1/admin/session', token }))

/** Registers a new passkey for `who` from their (unlocked) session. */
async function register(who: TestUser, name = 'Laptop', body: object = {}): Promise<SoftCredential> {
  const options = expectOk(await post('/v1/admin/passkeys/options', who.token, body))
  const made = device.create(options)
  expectOk(await post('/v1/admin/passkeys', who.token, { name, credential: made.json }))
  return made.credential
}

async function unlockOptions(token: string): Promise<string> {
  return expectOk(await post('/v1/admin/session/passkey/options', token)).challenge
}

/** A second login of the same operator (its own session, not elevated). */
async function loginAgain(who: TestAdmin): Promise<string> {
  const res = await t.req({
    method: 'POST',
    url: '/v1/auth/login',
    payload: { email: who.email, password: who.password },
  })
  const d = expectOk(res)
  if (!d.twoFaRequired) return d.token
  return expectOk(
    await t.req({
      method: 'POST',
      url: '/v1/auth/login/2fa',
      payload: { tempToken: d.tempToken.token, code: who.nextCode!() },
    }),
  ).token
}

describe('adding passkeys', () => {
  it('from an unlocked session: verified, listed, audited, and counted in the session', async () => {
    const before = await session(admin.token)
    expect(before).toMatchObject({ passkeys: 0, secondFactor: 'totp' })
    const options = expectOk(await post('/v1/admin/passkeys/options', admin.token))
    expect(options).toMatchObject({
      rp: { id: 'localhost' },
      user: { name: admin.email },
      authenticatorSelection: { userVerification: 'required' },
      excludeCredentials: [],
    })
    const made = device.create(options)
    const added = expectOk(
      await post('/v1/admin/passkeys', admin.token, { name: 'Work laptop', credential: made.json }),
    )
    expect(added).toMatchObject({
      id: made.credential.id,
      name: 'Work laptop',
      transports: ['internal'],
      lastUsedAt: null,
    })
    const list = expectOk(await t.req({ method: 'GET', url: '/v1/admin/passkeys', token: admin.token }))
    expect(list.data.map((p: { id: string }) => p.id)).toEqual([made.credential.id])
    expect((await session(admin.token)).passkeys).toBe(1)
    const audit = await auditRows(t, 'admin.passkey.register')
    expect(audit.at(-1)).toMatchObject({ actorId: admin.id, targetId: made.credential.id })
    // the same answer again: its challenge is used up
    expectError(
      await post('/v1/admin/passkeys', admin.token, { name: 'again', credential: made.json }),
      400,
      'PASSKEY_CHALLENGE_INVALID',
    )
    // the next options exclude the passkey
    const next = expectOk(await post('/v1/admin/passkeys/options', admin.token))
    expect(next.excludeCredentials.map((c: { id: string }) => c.id)).toEqual([made.credential.id])
  })

  it('without an unlocked session: only a first passkey, and only with a current authenticator code', async () => {
    const op = await createAdmin(t, run, 2, false)
    expectError(await post('/v1/admin/passkeys/options', op.token), 403, 'FORBIDDEN')
    expectError(await post('/v1/admin/passkeys/options', op.token, { code: '000000' }), 400, 'INVALID_CODE')
    await register(op, 'Phone', { code: op.nextCode!() })
    expect(await session(op.token)).toMatchObject({ elevated: false, passkeys: 1 })
    // a second one needs an unlocked session, code or not
    expectError(
      await post('/v1/admin/passkeys/options', op.token, { code: op.nextCode!() }),
      403,
      'FORBIDDEN',
    )
    // listing needs one too
    expectError(await t.req({ method: 'GET', url: '/v1/admin/passkeys', token: op.token }), 403, 'FORBIDDEN')
  })

  it('refuses a wrong origin or RP ID, and callers who are not operators', async () => {
    for (const bad of [{ origin: 'https://evil.example' }, { rpId: 'evil.example' }]) {
      const options = expectOk(await post('/v1/admin/passkeys/options', admin.token))
      const made = device.create(options, bad)
      expectError(
        await post('/v1/admin/passkeys', admin.token, { name: 'x', credential: made.json }),
        400,
        'PASSKEY_INVALID',
      )
    }
    for (const url of ['/v1/admin/passkeys/options', '/v1/admin/session/passkey/options']) {
      expectError(await t.req({ method: 'POST', url, payload: {} }), 401, 'UNAUTHENTICATED')
      expectError(await post(url, user.token), 403, 'FORBIDDEN')
    }
    expectError(
      await t.req({ method: 'GET', url: '/v1/admin/passkeys', token: user.token }),
      403,
      'FORBIDDEN',
    )
  })
})

describe('unlocking with a passkey', () => {
  let key: SoftCredential
  let otherKey: SoftCredential

  beforeAll(async () => {
    key = await register(admin, 'Second laptop')
    otherKey = await register(other, 'Other’s key')
  })

  async function locked(): Promise<string> {
    const token = await loginAgain(admin)
    expect((await session(token)).elevated).toBe(false)
    return token
  }

  it('elevates the session, audited as the step-up with the passkey, and moves the counter on', async () => {
    const token = await locked()
    const challenge = await unlockOptions(token)
    const answer = device.get(key, challenge)
    const s = expectOk(await post('/v1/admin/session/passkey', token, { credential: answer }))
    expect(s).toMatchObject({ elevated: true, method: 'passkey' })
    expectOk(await t.req({ method: 'GET', url: '/v1/admin/stats/overview', token }))
    const row = await t.database.db
      .selectFrom('adminPasskeys')
      .selectAll()
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow()
    expect(Number(row.counter)).toBe(key.counter)
    expect(row.lastUsedAt).not.toBeNull()
    expect((await auditRows(t, 'admin.session.elevate')).at(-1)).toMatchObject({
      actorId: admin.id,
      reason: 'second factor (passkey)',
    })
    // replayed: the challenge is used up
    expectError(
      await post('/v1/admin/session/passkey', token, { credential: answer }),
      400,
      'PASSKEY_CHALLENGE_INVALID',
    )
    expectError(
      await post('/v1/admin/session/passkey', token, { credential: device.get(key, challenge) }),
      400,
      'PASSKEY_CHALLENGE_INVALID',
    )
  })

  it('refuses a challenge never issued, expired, of another session or of the registration', async () => {
    const token = await locked()
    await unlockOptions(token)
    const never = Buffer.from('not issued by the service').toString('base64url')
    const cases: [string, string][] = [['never issued', never]]
    const elsewhere = await locked()
    cases.push(['another session’s', await unlockOptions(elsewhere)])
    const reg = expectOk(await post('/v1/admin/passkeys/options', admin.token)).challenge
    cases.push(['a registration’s', reg])
    for (const [what, challenge] of cases)
      expectError(
        await post('/v1/admin/session/passkey', what.startsWith('a reg') ? admin.token : token, {
          credential: device.get(key, challenge),
        }),
        400,
        'PASSKEY_CHALLENGE_INVALID',
      )
    const late = await unlockOptions(token)
    t.clock.advance(5 * 60_000 + 1000)
    expectError(
      await post('/v1/admin/session/passkey', token, { credential: device.get(key, late) }),
      400,
      'PASSKEY_CHALLENGE_INVALID',
    )
    expect((await session(token)).elevated).toBe(false)
  })

  it('refuses another account’s passkey, a wrong origin, no user verification and a counter that did not move on', async () => {
    const token = await locked()
    const stored = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('adminPasskeys')
            .select('counter')
            .where('id', '=', key.id)
            .executeTakeFirstOrThrow()
        ).counter,
      )
    // (used once first: a counter of 0 on both sides means an authenticator without one)
    const first = await locked()
    expectOk(
      await post('/v1/admin/session/passkey', first, {
        credential: device.get(key, await unlockOptions(first)),
      }),
    )
    const counter = await stored()
    expect(counter).toBeGreaterThan(0)
    const refusals = [
      () => device.get(otherKey, challenge),
      () => device.get(key, challenge, { origin: 'https://evil.example' }),
      () => device.get(key, challenge, { rpId: 'evil.example' }),
      () => device.get(key, challenge, { userVerified: false }),
      // the counter the service last saw, and one below it (a clone)
      () => device.get(key, challenge, { counter }),
      () => device.get(key, challenge, { counter: counter - 1 }),
    ]
    let challenge = ''
    for (const answer of refusals) {
      challenge = await unlockOptions(token)
      expectError(
        await post('/v1/admin/session/passkey', token, { credential: answer() }),
        400,
        'PASSKEY_INVALID',
      )
    }
    expect((await session(token)).elevated).toBe(false)
    expect(await stored()).toBe(counter)
    // the right answer still works afterwards
    challenge = await unlockOptions(token)
    expectOk(
      await post('/v1/admin/session/passkey', token, {
        credential: device.get(key, challenge, { counter: counter + 1 }),
      }),
    )
  })

  it('an operator without a passkey gets 422; removing one is audited and only one’s own', async () => {
    const op = await createAdmin(t, run, 3)
    expectError(await post('/v1/admin/session/passkey/options', op.token), 422, 'PASSKEY_NOT_REGISTERED')
    const reason = { reason: 'laptop handed back' }
    expectError(await post(`/v1/admin/passkeys/${otherKey.id}/remove`, admin.token, reason), 404, 'NOT_FOUND')
    expectOk(await post(`/v1/admin/passkeys/${otherKey.id}/remove`, other.token, reason))
    expect((await auditRows(t, 'admin.passkey.remove')).at(-1)).toMatchObject({
      actorId: other.id,
      targetId: otherKey.id,
      reason: reason.reason,
    })
    expect((await session(other.token)).passkeys).toBe(0)
    // a removed passkey no longer unlocks
    expectError(await post('/v1/admin/session/passkey/options', other.token), 422, 'PASSKEY_NOT_REGISTERED')
  })
})
