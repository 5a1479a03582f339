import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { matchTotpStep } from '../../src/modules/account/totp.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, lastCode, mailCount, type TestUser, uniqueEmail } from '../helpers/factories.ts'
import { api, base32Decode, expectError, expectOk, hotp, login, totpAt } from './helpers.ts'

let t: TestApp
let a: ReturnType<typeof api>
beforeAll(async () => {
  t = await createTestApp()
  a = api(t)
})
afterAll(() => t.close())

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** A code computed from the otpauth URI alone, by the independent implementation. */
function codeFromUri(uri: string, atMs = t.clock.now().getTime()) {
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

/** A different 6-digit code than `code`. */
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')

async function enableGoogle(u: TestUser) {
  const init = expectOk(await a.post('/v1/account/initiate/2fa', { type: 'google_auth' }, u.token), 202)
  expectOk(await a.post('/v1/account/activate/2fa', { code: codeFromUri(init.otpauthUrl) }, u.token))
  t.clock.advance(30_000)
  return init.otpauthUrl as string
}

async function enableEmail(u: TestUser) {
  expectOk(await a.post('/v1/account/initiate/2fa', { type: 'email' }, u.token), 202)
  expectOk(await a.post('/v1/account/activate/2fa', { code: await lastCode(t, u.email) }, u.token))
}

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
    expectError(await a.post('/v1/account/initiate/2fa', { type: 'email' }, u.token), 409, 'CONFLICT')
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
    expectError(await a.post('/v1/account/2fa/email', {}, u.token), 422, 'BUSINESS_RULE')
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
      'CONFLICT',
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

describe('email two-factor (#41–#44, #4–#6)', () => {
  it('sets up with a mailed code and logs in with an emailed code', async () => {
    const u = await createUser(t)
    const init = await a.post('/v1/account/initiate/2fa', { type: 'email' }, u.token)
    expect(init.statusCode).toBe(202)
    expect(init.json()).toEqual({ status: 'success', message: expect.any(String), data: { type: 'email' } })
    const code = await lastCode(t, u.email)
    expectError(await a.post('/v1/account/activate/2fa', { code: wrong(code) }, u.token), 400, 'INVALID_CODE')
    expectOk(await a.post('/v1/account/activate/2fa', { code }, u.token))
    expectError(await a.post('/v1/account/activate/2fa', { code }, u.token), 409, 'CONFLICT')
    expect(expectOk(await a.get('/v1/account', u.token)).twoFa).toEqual({
      type: 'email',
      status: true,
      securityQuestion: '',
    })

    const before = await mailCount(t, u.email)
    const challenge = expectOk(await login(t, u.email, u.password))
    expect(challenge).toEqual({
      twoFaRequired: true,
      twoFaType: 'email',
      tempToken: { token: expect.any(String), token_type: 'jwt', expiresIn: expect.any(Number) },
    })
    expect(await mailCount(t, u.email)).toBe(before + 1)
    const loginCode = await lastCode(t, u.email)
    expectError(
      await a.post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code: wrong(loginCode) }),
      400,
      'INVALID_CODE',
    )
    const data = expectOk(
      await a.post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code: loginCode }),
    )
    expect(data).toMatchObject({ _id: u.id, token_type: 'jwt', isVerified: true })
    expectOk(await a.get('/v1/account', data.token))
    expectError(
      await a.post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code: loginCode }),
      400,
      'INVALID_CODE',
    )
  })

  it('#6 mails a new code for the login under way and answers the same for any email', async () => {
    const u = await createUser(t)
    await enableEmail(u)
    const challenge = expectOk(await login(t, u.email, u.password))
    const firstCode = await lastCode(t, u.email)
    const res = await a.post('/v1/auth/2fa/email/code', { email: u.email.toUpperCase() })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'success', message: expect.any(String), data: {} })
    const secondCode = await lastCode(t, u.email)
    expect(await mailCount(t, u.email)).toBeGreaterThanOrEqual(2)
    // The earlier code stays valid until it expires (mail can arrive out of order).
    expectOk(await a.post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code: firstCode }))
    expectError(
      await a.post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code: secondCode }),
      400,
      'INVALID_CODE',
    )

    const unknown = uniqueEmail('nobody')
    const other = await a.post('/v1/auth/2fa/email/code', { email: unknown })
    expect(other.statusCode).toBe(200)
    expect(other.json()).toEqual(res.json())
    expect(await mailCount(t, unknown)).toBe(0)
    // An account without two-factor gets no mail either.
    const plain = await createUser(t)
    const n = await mailCount(t, plain.email)
    expect((await a.post('/v1/auth/2fa/email/code', { email: plain.email })).json()).toEqual(res.json())
    expect(await mailCount(t, plain.email)).toBe(n)
    expectError(await a.post('/v1/auth/2fa/email/code', { email: 'not-an-email' }), 400, 'VALIDATION_ERROR')
    expectError(await a.post('/v1/auth/2fa/email/code', {}), 400, 'VALIDATION_ERROR')
  })

  it('#5 refuses a tempToken of another purpose, a garbage one, and an expired one', async () => {
    const u = await createUser(t)
    await enableEmail(u)
    const reset = expectOk(await a.post('/v1/auth/password/reset', { email: u.email }))
    expectError(
      await a.post('/v1/auth/login/2fa', { tempToken: reset.tempToken.token, code: '123456' }),
      401,
      'UNAUTHENTICATED',
    )
    expectError(
      await a.post('/v1/auth/login/2fa', { tempToken: 'x'.repeat(40), code: '123456' }),
      401,
      'UNAUTHENTICATED',
    )
    expectError(
      await a.post('/v1/auth/login/2fa', { tempToken: 'x'.repeat(40), code: '12345' }),
      400,
      'VALIDATION_ERROR',
    )
    const challenge = expectOk(await login(t, u.email, u.password))
    const code = await lastCode(t, u.email)
    t.clock.advance(16 * 60_000)
    expectError(
      await a.post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code }),
      400,
      'INVALID_CODE',
    )
  })

  it('deactivates with a code from #44, and #44 checks its body', async () => {
    const u = await createUser(t)
    await enableEmail(u)
    expectError(await a.post('/v1/account/deactivate/2fa', { code: '123456' }, u.token), 400, 'INVALID_CODE')
    expectError(
      await a.post('/v1/account/2fa/email', { emailType: 'reset' }, u.token),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await a.post('/v1/account/2fa/email', { password: 'Wr0ng!pass' }, u.token),
      401,
      'INVALID_CREDENTIALS',
    )
    expectError(await a.post('/v1/account/2fa/email', { other: 1 }, u.token), 400, 'VALIDATION_ERROR')
    const sent = await a.post('/v1/account/2fa/email', { emailType: 'two_fa', password: u.password }, u.token)
    expect(sent.statusCode).toBe(200)
    expect(sent.json()).toEqual({ status: 'success', message: expect.any(String), data: {} })
    const code = await lastCode(t, u.email)
    expectError(
      await a.post('/v1/account/deactivate/2fa', { code: wrong(code) }, u.token),
      400,
      'INVALID_CODE',
    )
    expectOk(await a.post('/v1/account/deactivate/2fa', { code }, u.token))
    expect(expectOk(await a.get('/v1/account', u.token)).twoFa.status).toBe(false)
  })
})

describe('codes for sensitive actions (#44 and verifySensitiveCode)', () => {
  const verify = (userId: string, code: string) =>
    t.app.services.accountSecurity.verifySensitiveCode(userId, code)

  it('accepts a #44 code once (an earlier one too), refuses an expired one, and counts wrong ones', async () => {
    const u = await createUser(t)
    // No body at all means the defaults.
    expectOk(await a.post('/v1/account/2fa/email', undefined, u.token))
    const old = await lastCode(t, u.email)
    expectOk(await a.post('/v1/account/2fa/email', {}, u.token))
    const code = await lastCode(t, u.email)
    // An earlier code stays valid until it expires; using any of them uses the request up.
    await expect(verify(u.id, old)).resolves.toBeUndefined()
    await expect(verify(u.id, code)).rejects.toMatchObject({ code: 'INVALID_CODE' })

    expectOk(await a.post('/v1/account/2fa/email', {}, u.token))
    const expiring = await lastCode(t, u.email)
    t.clock.advance(16 * 60_000)
    await expect(verify(u.id, expiring)).rejects.toMatchObject({ code: 'INVALID_CODE' })

    expectOk(await a.post('/v1/account/2fa/email', {}, u.token))
    const good = await lastCode(t, u.email)
    for (let i = 0; i < 4; i++)
      await expect(verify(u.id, wrong(good))).rejects.toMatchObject({ code: 'INVALID_CODE' })
    await expect(verify(u.id, wrong(good))).rejects.toMatchObject({ code: 'TOO_MANY_ATTEMPTS' })
    await expect(verify(u.id, good)).rejects.toMatchObject({ code: 'TOO_MANY_ATTEMPTS' })
  })

  it('accepts the current authenticator code when google_auth is on, each step once', async () => {
    const u = await createUser(t)
    const uri = await enableGoogle(u)
    const code = codeFromUri(uri)
    const result = await t.app.services.accountSecurity.verifySensitiveCode(u.id, code, async () => 'done')
    expect(result).toBe('done')
    await expect(verify(u.id, code)).rejects.toMatchObject({ code: 'INVALID_CODE' })
    t.clock.advance(30_000)
    // A failure in the caller's step rolls the use of the code back.
    const next = codeFromUri(uri)
    await expect(
      t.app.services.accountSecurity.verifySensitiveCode(u.id, next, async () => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    await expect(verify(u.id, next)).resolves.toBeUndefined()
    t.clock.advance(30_000)
    const later = codeFromUri(uri)
    for (let i = 0; i < 4; i++)
      await expect(verify(u.id, wrong(later))).rejects.toMatchObject({ code: 'INVALID_CODE' })
    await expect(verify(u.id, wrong(later))).rejects.toMatchObject({ code: 'TOO_MANY_ATTEMPTS' })
    await expect(verify(u.id, later)).rejects.toMatchObject({ code: 'TOO_MANY_ATTEMPTS' })
    // The lock lasts 15 minutes.
    t.clock.advance(16 * 60_000)
    await expect(verify(u.id, codeFromUri(uri))).resolves.toBeUndefined()
  })
})
