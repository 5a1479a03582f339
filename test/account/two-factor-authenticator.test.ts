// Two-factor with an authenticator app (google_auth): TOTP checked against the RFC vectors, then
// set-up, activation, login and deactivation, each code used once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { matchTotpStep } from '../../src/modules/account/totp.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import {
  api,
  authenticator,
  base32Decode,
  expectError,
  expectOk,
  hotp,
  ISO,
  login,
  wrong,
} from './helpers.ts'

let t: TestApp
let a: ReturnType<typeof api>
beforeAll(async () => {
  t = await createTestApp()
  a = api(t)
})
afterAll(() => t.close())

const { codeFromUri, enableGoogle } = authenticator(() => t)

describe('TOTP (RFC 6238)', () => {
  // RFC 6238 appendix B, SHA-1, 8 digits; a 6-digit code is the last six digits.
  const vectors: Array<[number, string]> = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ]
  const key = Buffer.from('12345678901234567890')
  const keyBase32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'

  it('the independent implementation matches the RFC vectors', () => {
    expect(base32Decode(keyBase32)).toEqual(key)
    for (const [time, code] of vectors) expect(hotp(key, Math.floor(time / 30), 8)).toBe(code)
  })

  it('the server accepts each vector at its time, within one step of drift, and nothing else', () => {
    for (const [time, code] of vectors) {
      const step = Math.floor(time / 30)
      expect(matchTotpStep(keyBase32, code.slice(2), time * 1000)).toBe(step)
      expect(matchTotpStep(keyBase32, code.slice(2), time * 1000 + 30_000)).toBe(step)
      expect(matchTotpStep(keyBase32, code.slice(2), time * 1000 - 30_000)).toBe(step)
      expect(matchTotpStep(keyBase32, code.slice(2), time * 1000 + 61_000)).toBeUndefined()
      expect(matchTotpStep(keyBase32, wrong(code.slice(2)), time * 1000)).toBeUndefined()
    }
    expect(matchTotpStep(keyBase32, '12345', 59_000)).toBeUndefined()
  })
})

describe('google_auth two-factor (#41, #42, #43, #4, #5)', () => {
  it('sets up with an otpauth URI, activates with its code, and logs in with a fresh code', async () => {
    const u = await createUser(t)
    const res = await a.post('/v1/account/initiate/2fa', { type: 'google_auth' }, u.token)
    const init = expectOk(res, 202)
    expect(init).toEqual({
      type: 'google_auth',
      secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
      otpauthUrl: expect.any(String),
    })
    const uri = new URL(init.otpauthUrl)
    expect(uri.protocol).toBe('otpauth:')
    expect(uri.host).toBe('totp')
    expect(uri.searchParams.get('secret')).toBe(init.secret)
    expect(uri.searchParams.get('algorithm')).toBe('SHA1')
    expect(uri.searchParams.get('digits')).toBe('6')
    expect(uri.searchParams.get('period')).toBe('30')
    expect(decodeURIComponent(uri.pathname)).toContain(u.email)
    // Not on until activated; the secret is sealed at rest.
    expect(expectOk(await a.get('/v1/account', u.token)).twoFa).toEqual({
      type: '',
      status: false,
      securityQuestion: '',
    })
    const stored = JSON.stringify(await t.database.db.selectFrom('twoFaSetups').selectAll().execute())
    expect(stored).not.toContain(init.secret)

    expectError(
      await a.post('/v1/account/activate/2fa', { code: wrong(codeFromUri(init.otpauthUrl)) }, u.token),
      400,
      'INVALID_CODE',
    )
    // Kept, not recomputed: real time may cross a 30 s step before the reuse check below.
    const activationCode = codeFromUri(init.otpauthUrl)
    const act = await a.post('/v1/account/activate/2fa', { code: activationCode }, u.token)
    expect(act.json()).toEqual({ status: 'success', message: expect.any(String), data: {} })
    expect(expectOk(await a.get('/v1/account', u.token)).twoFa).toEqual({
      type: 'google_auth',
      status: true,
      securityQuestion: '',
    })
    const row = await t.database.db
      .selectFrom('users')
      .select('twoFaSecret')
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow()
    expect(row.twoFaSecret).toBeTruthy()
    expect(row.twoFaSecret).not.toContain(init.secret)

    // The activation code cannot be used again, even within its window.
    const first = await login(t, u.email, u.password)
    const challenge = expectOk(first)
    expect(challenge).toEqual({
      twoFaRequired: true,
      twoFaType: 'google_auth',
      tempToken: { token: expect.any(String), token_type: 'jwt', expiresIn: expect.any(Number) },
    })
    expect(challenge.token).toBeUndefined()
    expectError(
      await a.post('/v1/auth/login/2fa', {
        tempToken: challenge.tempToken.token,
        code: activationCode,
      }),
      400,
      'INVALID_CODE',
    )
    t.clock.advance(30_000)
    const code = codeFromUri(init.otpauthUrl)
    const ok = await a.post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code })
    const data = expectOk(ok)
    expect(data).toMatchObject({
      _id: u.id,
      email: u.email,
      token_type: 'jwt',
      isVerified: true,
      status: true,
    })
    expect(data.twoFa).toEqual({ type: 'google_auth', status: true, securityQuestion: '' })
    expect(data.expiresIn).toBeGreaterThan(Date.now() + 365 * 24 * 3600 * 1000)
    expect(data.loggedInAt).toMatch(ISO)
    expect(Object.keys(data)).toEqual(
      expect.arrayContaining(['profile', 'socials', 'achievements', 'meta', 'socket']),
    )
    expectOk(await a.get('/v1/account', data.token))
    // The tempToken is used up, and the same code is refused in a new login.
    expectError(
      await a.post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code }),
      400,
      'INVALID_CODE',
    )
    const again = expectOk(await login(t, u.email, u.password))
    expectError(
      await a.post('/v1/auth/login/2fa', { tempToken: again.tempToken.token, code }),
      400,
      'INVALID_CODE',
    )
  })

  it('refuses initiate while on (409) and activate without a setup', async () => {
    const u = await createUser(t)
    expectError(await a.post('/v1/account/activate/2fa', { code: '123456' }, u.token), 400, 'INVALID_CODE')
    const uri = await enableGoogle(u)
    const again = await a.post('/v1/account/initiate/2fa', { type: 'email' }, u.token)
    expectError(again, 409, 'CONFLICT')
    expect(again.json().data.reason).toBe('TWO_FACTOR_ALREADY_ENABLED')
    expectError(await a.post('/v1/account/initiate/2fa', { type: 'google_auth' }, u.token), 409, 'CONFLICT')
    expectError(
      await a.post('/v1/account/activate/2fa', { code: codeFromUri(uri) }, u.token),
      409,
      'CONFLICT',
    )
  })

  it('kills the setup after five wrong codes', async () => {
    const u = await createUser(t)
    const init = expectOk(await a.post('/v1/account/initiate/2fa', { type: 'google_auth' }, u.token), 202)
    const good = codeFromUri(init.otpauthUrl)
    for (let i = 0; i < 4; i++)
      expectError(
        await a.post('/v1/account/activate/2fa', { code: wrong(good) }, u.token),
        400,
        'INVALID_CODE',
      )
    expectError(
      await a.post('/v1/account/activate/2fa', { code: wrong(good) }, u.token),
      429,
      'TOO_MANY_ATTEMPTS',
    )
    expectError(await a.post('/v1/account/activate/2fa', { code: good }, u.token), 429, 'TOO_MANY_ATTEMPTS')
    expect(expectOk(await a.get('/v1/account', u.token)).twoFa.status).toBe(false)
    // A new setup starts afresh.
    const next = expectOk(await a.post('/v1/account/initiate/2fa', { type: 'google_auth' }, u.token), 202)
    expect(next.secret).not.toBe(init.secret)
    expectOk(await a.post('/v1/account/activate/2fa', { code: codeFromUri(next.otpauthUrl) }, u.token))
  })

  it('deactivates with a current authenticator code, each code once', async () => {
    const u = await createUser(t)
    const uri = await enableGoogle(u)
    expectError(
      await a.post('/v1/account/deactivate/2fa', { code: wrong(codeFromUri(uri)) }, u.token),
      400,
      'INVALID_CODE',
    )
    // #44 codes are not used with an authenticator app.
    expectError(await a.post('/v1/account/2fa/email', {}, u.token), 422, 'TWO_FACTOR_USES_APP')
    const res = await a.post('/v1/account/deactivate/2fa', { code: codeFromUri(uri) }, u.token)
    expect(res.json()).toEqual({ status: 'success', message: expect.any(String), data: {} })
    expect(expectOk(await a.get('/v1/account', u.token)).twoFa).toEqual({
      type: '',
      status: false,
      securityQuestion: '',
    })
    expectError(
      await a.post('/v1/account/deactivate/2fa', { code: codeFromUri(uri) }, u.token),
      409,
      'TWO_FACTOR_NOT_ENABLED',
    )
    // Login is back to one step.
    expect(expectOk(await login(t, u.email, u.password)).token).toEqual(expect.any(String))
  })

  it('kills the login tempToken after five wrong codes', async () => {
    const u = await createUser(t)
    const uri = await enableGoogle(u)
    const challenge = expectOk(await login(t, u.email, u.password))
    const good = codeFromUri(uri)
    for (let i = 0; i < 4; i++)
      expectError(
        await a.post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code: wrong(good) }),
        400,
        'INVALID_CODE',
      )
    expectError(
      await a.post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code: wrong(good) }),
      429,
      'TOO_MANY_ATTEMPTS',
    )
    expectError(
      await a.post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code: good }),
      429,
      'TOO_MANY_ATTEMPTS',
    )
  })
})
