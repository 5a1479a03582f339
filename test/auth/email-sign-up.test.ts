// Email sign-up (#1): the answer and the mailed code, password and body checks, one account per
// email, and what is stored of the password and the code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { lastCode, PASSWORD, uniqueEmail } from '../helpers/factories.ts'
import { authFlows } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const { post, expectTokenObject, register } = authFlows(() => t)

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
    // the contract fixes CONFLICT; the named reason is beside it
    expect(res.json().data.reason).toBe('EMAIL_TAKEN')
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
