import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, lastCode, mailCount, PASSWORD, uniqueEmail } from '../helpers/factories.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.req({ method: 'POST', url, payload: payload as object, headers })

function expectTokenObject(tok: any, now: number) {
  expect(tok).toEqual({ token: expect.any(String), token_type: 'jwt', expiresIn: expect.any(Number) })
  expect(Number.isInteger(tok.expiresIn)).toBe(true)
  expect(tok.expiresIn).toBeGreaterThan(now)
  expect(tok.token.split('.')).toHaveLength(3)
}

function expectError(res: { statusCode: number; json(): any }, status: number, code: string) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status)
  const body = res.json()
  expect(body.status).toBe('error')
  expect(typeof body.message).toBe('string')
  expect(body.data.code).toBe(code)
}

async function register(email = uniqueEmail(), password = PASSWORD) {
  const res = await post('/v1/auth/create-account', {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email,
    password,
    confirmPassword: password,
  })
  expect(res.statusCode, res.body).toBe(202)
  return { email, password, tempToken: res.json().data.tempToken.token as string }
}

describe('POST /v1/auth/create-account (#1)', () => {
  it('answers 202 with the email and a temporary token, and mails a code in text and HTML', async () => {
    const email = uniqueEmail()
    const res = await post('/v1/auth/create-account', {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: email.toUpperCase(),
      password: PASSWORD,
      confirmPassword: PASSWORD,
    })
    expect(res.statusCode).toBe(202)
    expect(res.headers['x-request-id']).toBeTruthy()
    const body = res.json()
    expect(body).toEqual({
      status: 'success',
      message: expect.any(String),
      data: { email, tempToken: expect.any(Object) },
    })
    expectTokenObject(body.data.tempToken, Date.now())
    // 15 minutes, as Unix milliseconds
    expect(body.data.tempToken.expiresIn - Date.now()).toBeGreaterThan(14 * 60_000)
    expect(body.data.tempToken.expiresIn - Date.now()).toBeLessThanOrEqual(15 * 60_000 + 5000)
    await t.drain()
    const mail = await t.database.db
      .selectFrom('mails')
      .selectAll()
      .where('toAddress', '=', email)
      .executeTakeFirstOrThrow()
    const code = mail.text.match(/\b(\d{6})\b/)![1]!
    expect(mail.html).toContain(code)
    expect(mail.subject).toMatch(/verify/i)
  })

  it('refuses mismatched passwords with PASSWORD_MISMATCH', async () => {
    const res = await post('/v1/auth/create-account', {
      firstName: 'A',
      lastName: 'B',
      email: uniqueEmail(),
      password: PASSWORD,
      confirmPassword: `${PASSWORD}x`,
    })
    expectError(res, 400, 'PASSWORD_MISMATCH')
  })

  it.each(['short1!', 'alllowercaseletters', 'lowerand123456'])(
    'refuses the weak password %s',
    async (pw) => {
      const res = await post('/v1/auth/create-account', {
        firstName: 'A',
        lastName: 'B',
        email: uniqueEmail(),
        password: pw,
        confirmPassword: pw,
      })
      expectError(res, 400, 'WEAK_PASSWORD')
    },
  )

  it('refuses an email already registered, whatever its case', async () => {
    const { email } = await register()
    const res = await post('/v1/auth/create-account', {
      firstName: 'A',
      lastName: 'B',
      email: email.toUpperCase(),
      password: PASSWORD,
      confirmPassword: PASSWORD,
    })
    expectError(res, 409, 'CONFLICT')
  })

  it('creates one account when the same email registers twice at once', async () => {
    const email = uniqueEmail()
    const body = { firstName: 'A', lastName: 'B', email, password: PASSWORD, confirmPassword: PASSWORD }
    const results = await Promise.all([
      post('/v1/auth/create-account', body),
      post('/v1/auth/create-account', body),
    ])
    expect(results.map((r) => r.statusCode).sort()).toEqual([202, 409])
    const rows = await t.database.db.selectFrom('users').select('id').where('email', '=', email).execute()
    expect(rows).toHaveLength(1)
  })

  const garbage: Array<[string, unknown]> = [
    ['missing fields', { email: 'x@example.com' }],
    ['wrong types', { firstName: 1, lastName: true, email: [], password: {}, confirmPassword: null }],
    [
      'an extra field',
      {
        firstName: 'A',
        lastName: 'B',
        email: uniqueEmail(),
        password: PASSWORD,
        confirmPassword: PASSWORD,
        role: 'admin',
      },
    ],
    [
      'a huge string',
      {
        firstName: 'A'.repeat(100_000),
        lastName: 'B',
        email: uniqueEmail(),
        password: PASSWORD,
        confirmPassword: PASSWORD,
      },
    ],
    [
      'a bad email',
      { firstName: 'A', lastName: 'B', email: 'not-an-email', password: PASSWORD, confirmPassword: PASSWORD },
    ],
    [
      'blank names',
      {
        firstName: '   ',
        lastName: 'B',
        email: uniqueEmail(),
        password: PASSWORD,
        confirmPassword: PASSWORD,
      },
    ],
    ['an array body', [1, 2, 3]],
    ['a string body', 'hello'],
  ]
  it.each(garbage)('answers 400 VALIDATION_ERROR with field errors for %s', async (_name, payload) => {
    const res = await t.req({
      method: 'POST',
      url: '/v1/auth/create-account',
      payload: JSON.stringify(payload),
      headers: { 'content-type': 'application/json' },
    })
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(Array.isArray(res.json().data.errors)).toBe(true)
    expect(res.json().data.errors[0]).toEqual({ path: expect.any(String), message: expect.any(String) })
  })

  it('answers 400 for malformed JSON and an empty body', async () => {
    const bad = await t.req({
      method: 'POST',
      url: '/v1/auth/create-account',
      payload: '{"email":',
      headers: { 'content-type': 'application/json' },
    })
    expectError(bad, 400, 'VALIDATION_ERROR')
    const empty = await t.req({
      method: 'POST',
      url: '/v1/auth/create-account',
      headers: { 'content-type': 'application/json' },
    })
    expectError(empty, 400, 'VALIDATION_ERROR')
  })

  it('answers 415 for a body that is not JSON', async () => {
    const res = await t.req({
      method: 'POST',
      url: '/v1/auth/create-account',
      payload: 'email=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE')
  })
})

describe('POST /v1/auth/account/verify (#2)', () => {
  it('activates the account and returns the permanent token', async () => {
    const { email, tempToken } = await register()
    const code = await lastCode(t, email)
    const res = await post('/v1/auth/account/verify', { token: code, tempToken })
    expect(res.statusCode).toBe(200)
    const data = res.json().data
    expect(Object.keys(data).sort()).toEqual(['expiresIn', 'isVerified', 'token', 'token_type'])
    expect(data.isVerified).toBe(true)
    expect(data.token_type).toBe('jwt')
    // far in the future: about ten years, in Unix milliseconds
    expect(data.expiresIn).toBeGreaterThan(Date.now() + 9 * 365 * 24 * 3600 * 1000)
    const me = await t.req({ method: 'GET', url: '/v1/account', token: data.token })
    expect(me.statusCode).toBe(200)
    expect(me.json().data.emailVerified).toBe(true)
    expect(me.json().data.status).toBe(true)
  })

  it('uses a code once', async () => {
    const { email, tempToken } = await register()
    const code = await lastCode(t, email)
    expect((await post('/v1/auth/account/verify', { token: code, tempToken })).statusCode).toBe(200)
    expectError(await post('/v1/auth/account/verify', { token: code, tempToken }), 400, 'INVALID_CODE')
  })

  it('counts wrong codes and kills the flow at the fifth', async () => {
    const { email, tempToken } = await register()
    const code = await lastCode(t, email)
    const wrong = code === '000000' ? '111111' : '000000'
    for (let i = 0; i < 4; i++)
      expectError(await post('/v1/auth/account/verify', { token: wrong, tempToken }), 400, 'INVALID_CODE')
    expectError(await post('/v1/auth/account/verify', { token: wrong, tempToken }), 429, 'TOO_MANY_ATTEMPTS')
    // even the right code no longer works
    expectError(await post('/v1/auth/account/verify', { token: code, tempToken }), 429, 'TOO_MANY_ATTEMPTS')
  })

  it('counts concurrent wrong codes exactly', async () => {
    const { email, tempToken } = await register()
    const code = await lastCode(t, email)
    const wrong = code === '000000' ? '111111' : '000000'
    const results = await Promise.all(
      Array.from({ length: 8 }, () => post('/v1/auth/account/verify', { token: wrong, tempToken })),
    )
    expect(results.filter((r) => r.statusCode === 400)).toHaveLength(4)
    expect(results.filter((r) => r.statusCode === 429)).toHaveLength(4)
  })

  it('refuses an expired code', async () => {
    const { email, tempToken } = await register()
    const code = await lastCode(t, email)
    t.clock.advance(16 * 60 * 1000)
    try {
      expectError(await post('/v1/auth/account/verify', { token: code, tempToken }), 400, 'INVALID_CODE')
    } finally {
      t.clock.advance(-16 * 60 * 1000)
    }
  })

  it('refuses a temporary token of another purpose, a permanent token and garbage with 401', async () => {
    const user = await createUser(t)
    const reset = await post('/v1/auth/password/reset', { email: user.email })
    const code = await lastCode(t, user.email)
    expectError(
      await post('/v1/auth/account/verify', { token: code, tempToken: reset.json().data.tempToken.token }),
      401,
      'UNAUTHENTICATED',
    )
    expectError(
      await post('/v1/auth/account/verify', { token: code, tempToken: user.token }),
      401,
      'UNAUTHENTICATED',
    )
    expectError(
      await post('/v1/auth/account/verify', { token: code, tempToken: 'x'.repeat(40) }),
      401,
      'UNAUTHENTICATED',
    )
  })

  it('refuses a code that is not 6 digits', async () => {
    const { tempToken } = await register()
    expectError(await post('/v1/auth/account/verify', { token: '12345', tempToken }), 400, 'VALIDATION_ERROR')
    expectError(await post('/v1/auth/account/verify', { token: 123456, tempToken }), 400, 'VALIDATION_ERROR')
  })
})

describe('POST /v1/auth/verify/resend (#3)', () => {
  it('sends a new code that replaces the old one', async () => {
    const { email, tempToken: first } = await register()
    const oldCode = await lastCode(t, email)
    const res = await post('/v1/auth/verify/resend', { email })
    expect(res.statusCode).toBe(200)
    expect(Object.keys(res.json().data)).toEqual(['tempToken'])
    const newCode = await lastCode(t, email)
    expect(await mailCount(t, email)).toBe(2)
    if (oldCode !== newCode)
      expectError(
        await post('/v1/auth/account/verify', { token: oldCode, tempToken: first }),
        400,
        'INVALID_CODE',
      )
    const ok = await post('/v1/auth/account/verify', {
      token: newCode,
      tempToken: res.json().data.tempToken.token,
    })
    expect(ok.statusCode).toBe(200)
  })

  it('answers the same for an unknown email and for a verified account, and mails nobody', async () => {
    const user = await createUser(t)
    const unknown = uniqueEmail('ghost')
    const before = await mailCount(t, user.email)
    const a = await post('/v1/auth/verify/resend', { email: unknown })
    const b = await post('/v1/auth/verify/resend', { email: user.email })
    for (const r of [a, b]) {
      expect(r.statusCode).toBe(200)
      expect(Object.keys(r.json().data)).toEqual(['tempToken'])
      expectTokenObject(r.json().data.tempToken, Date.now())
      expect(r.json().message).toBe(a.json().message)
    }
    expect(await mailCount(t, unknown)).toBe(0)
    expect(await mailCount(t, user.email)).toBe(before)
  })

  it('refuses a missing or bad email', async () => {
    expectError(await post('/v1/auth/verify/resend', {}), 400, 'VALIDATION_ERROR')
    expectError(await post('/v1/auth/verify/resend', { email: 'nope' }), 400, 'VALIDATION_ERROR')
  })
})

describe('POST /v1/auth/login (#4)', () => {
  it('returns the permanent token for the right password, whatever the email case', async () => {
    const user = await createUser(t)
    const res = await post('/v1/auth/login', { email: user.email.toUpperCase(), password: user.password })
    expect(res.statusCode).toBe(200)
    const data = res.json().data
    expect(Object.keys(data).sort()).toEqual(['expiresIn', 'isVerified', 'token', 'token_type'])
    expect(data.isVerified).toBe(true)
    expect((await t.req({ method: 'GET', url: '/v1/account', token: data.token })).statusCode).toBe(200)
  })

  it('answers 401 INVALID_CREDENTIALS for a wrong password or an unknown email', async () => {
    const user = await createUser(t)
    expectError(
      await post('/v1/auth/login', { email: user.email, password: 'Wrong-pass1' }),
      401,
      'INVALID_CREDENTIALS',
    )
    expectError(
      await post('/v1/auth/login', { email: uniqueEmail(), password: 'Wrong-pass1' }),
      401,
      'INVALID_CREDENTIALS',
    )
  })

  it('answers 403 EMAIL_NOT_VERIFIED before verification', async () => {
    const { email, password } = await register()
    expectError(await post('/v1/auth/login', { email, password }), 403, 'EMAIL_NOT_VERIFIED')
  })

  it('answers 403 only for the right password (no probing of unverified accounts)', async () => {
    const { email } = await register()
    expectError(await post('/v1/auth/login', { email, password: 'Wrong-pass1' }), 401, 'INVALID_CREDENTIALS')
  })
})

describe('password reset (#7, #8, #9)', () => {
  it('resets the password: the new one works, the old one does not, and every session is revoked', async () => {
    const user = await createUser(t)
    const second = (await post('/v1/auth/login', { email: user.email, password: user.password })).json().data
      .token
    const start = await post('/v1/auth/password/reset', { email: user.email })
    expect(start.statusCode).toBe(200)
    expect(Object.keys(start.json().data)).toEqual(['tempToken'])
    const tempToken = start.json().data.tempToken.token
    const code = await lastCode(t, user.email)

    const check = await post('/v1/auth/validate/password', { token: code, tempToken })
    expect(check.statusCode).toBe(200)
    expect(check.json()).toEqual({ status: 'success', message: expect.any(String), data: null })

    const change = await post('/v1/auth/password/change', {
      token: code,
      tempToken,
      password: 'N3w-password!',
    })
    expect(change.statusCode).toBe(200)
    expect(change.headers['content-type']).toMatch(/^text\/plain/)
    expect(JSON.parse(change.body)).toEqual({ status: 'success', message: expect.any(String), data: {} })

    expectError(
      await post('/v1/auth/login', { email: user.email, password: user.password }),
      401,
      'INVALID_CREDENTIALS',
    )
    expect((await post('/v1/auth/login', { email: user.email, password: 'N3w-password!' })).statusCode).toBe(
      200,
    )
    for (const token of [user.token, second]) {
      expectError(await t.req({ method: 'GET', url: '/v1/account', token }), 401, 'UNAUTHENTICATED')
    }
    // the code was used up
    expectError(
      await post('/v1/auth/password/change', { token: code, tempToken, password: 'An0ther-pass!' }),
      400,
      'INVALID_CODE',
    )
  })

  it('refuses a weak new password and keeps the code usable', async () => {
    const user = await createUser(t)
    const tempToken = (await post('/v1/auth/password/reset', { email: user.email })).json().data.tempToken
      .token
    const code = await lastCode(t, user.email)
    expectError(
      await post('/v1/auth/password/change', { token: code, tempToken, password: 'weak' }),
      400,
      'WEAK_PASSWORD',
    )
    expect(
      (await post('/v1/auth/password/change', { token: code, tempToken, password: 'G00d-password' }))
        .statusCode,
    ).toBe(200)
  })

  it('refuses wrong codes at #8 and #9, and a verification token at #8', async () => {
    const user = await createUser(t)
    const tempToken = (await post('/v1/auth/password/reset', { email: user.email })).json().data.tempToken
      .token
    const code = await lastCode(t, user.email)
    const wrong = code === '999999' ? '888888' : '999999'
    expectError(await post('/v1/auth/validate/password', { token: wrong, tempToken }), 400, 'INVALID_CODE')
    expectError(
      await post('/v1/auth/password/change', { token: wrong, tempToken, password: 'G00d-password' }),
      400,
      'INVALID_CODE',
    )
    const { tempToken: verifyToken } = await register()
    expectError(
      await post('/v1/auth/validate/password', { token: code, tempToken: verifyToken }),
      401,
      'UNAUTHENTICATED',
    )
  })

  it('answers an unknown email like a real one, sends nothing, and its token never validates', async () => {
    const email = uniqueEmail('nobody')
    const res = await post('/v1/auth/password/reset', { email })
    expect(res.statusCode).toBe(200)
    expectTokenObject(res.json().data.tempToken, Date.now())
    expect(await mailCount(t, email)).toBe(0)
    expectError(
      await post('/v1/auth/validate/password', {
        token: '123456',
        tempToken: res.json().data.tempToken.token,
      }),
      400,
      'INVALID_CODE',
    )
  })
})

describe('bearer tokens', () => {
  it('answers 401 without a token, with a malformed one, and with a temporary token', async () => {
    expectError(await t.req({ method: 'GET', url: '/v1/account' }), 401, 'UNAUTHENTICATED')
    expectError(
      await t.req({ method: 'GET', url: '/v1/account', headers: { authorization: 'Basic abc' } }),
      401,
      'UNAUTHENTICATED',
    )
    expectError(await t.req({ method: 'GET', url: '/v1/account', token: 'a.b.c' }), 401, 'UNAUTHENTICATED')
    const { tempToken } = await register()
    expectError(await t.req({ method: 'GET', url: '/v1/account', token: tempToken }), 401, 'UNAUTHENTICATED')
  })

  it('refuses a token signed with another secret', async () => {
    const { TokenService } = await import('../../src/modules/auth/tokens.ts')
    const user = await createUser(t)
    const session = await t.database.db
      .selectFrom('sessions')
      .select('id')
      .where('userId', '=', user.id)
      .executeTakeFirstOrThrow()
    const forged = await new TokenService('another-secret-another-secret-0123456789', t.clock).access(
      user.id,
      session.id,
    )
    expectError(
      await t.req({ method: 'GET', url: '/v1/account', token: forged.token }),
      401,
      'UNAUTHENTICATED',
    )
  })
})

describe('secrets at rest', () => {
  it('stores neither the password nor the code in plain text', async () => {
    const { email, password } = await register()
    const code = await lastCode(t, email)
    const user = await t.database.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', email)
      .executeTakeFirstOrThrow()
    expect(user.passwordHash).toMatch(/^\$argon2id\$/)
    expect(JSON.stringify(user)).not.toContain(password)
    const flows = await t.database.db
      .selectFrom('authFlows')
      .selectAll()
      .where('userId', '=', user.id)
      .execute()
    expect(JSON.stringify(flows)).not.toContain(code)
  })
})
