// Email verification (#2) with the mailed code, and a new code on request (#3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { createUser, lastCode, mailCount, uniqueEmail } from '../helpers/factories.ts'
import { authFlows } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const { post, expectTokenObject, register } = authFlows(() => t)

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
