// A new password-reset code on request (POST /v1/auth/password/reset/resend, the SDK's
// resendResetPassword): the same answer for every email, mail only for a real account, earlier
// codes valid until they expire, and one rate limit with #7.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { createUser, lastCode, mailCount, uniqueEmail } from '../helpers/factories.ts'
import { authFlows } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_AUTH_PER_EMAIL: '4', RATE_LIMIT_AUTH_PER_IP: '1000' } })
})
afterAll(() => t.close())

const { post, expectTokenObject } = authFlows(() => t)
const RESEND = '/v1/auth/password/reset/resend'

describe('POST /v1/auth/password/reset/resend', () => {
  it('mails a new code with a new tempToken; the new and the earlier code both reset once', async () => {
    const user = await createUser(t)
    const mails = await mailCount(t, user.email)
    const first = await post('/v1/auth/password/reset', { email: user.email })
    const firstCode = await lastCode(t, user.email)
    const again = await post(RESEND, { email: user.email })
    expect(again.statusCode).toBe(200)
    expect(again.json()).toEqual({
      status: 'success',
      message: 'If the email has an account, a new reset code was sent',
      data: { tempToken: expect.any(Object) },
    })
    expectTokenObject(again.json().data.tempToken, Date.now())
    expect(await mailCount(t, user.email)).toBe(mails + 2)
    const secondCode = await lastCode(t, user.email)
    const tempToken = again.json().data.tempToken.token
    expect(tempToken).not.toBe(first.json().data.tempToken.token)
    // the earlier code is still good under the new token (mail can arrive late)
    expect((await post('/v1/auth/validate/password', { token: firstCode, tempToken })).statusCode).toBe(200)
    const change = await post('/v1/auth/password/change', {
      token: secondCode,
      tempToken,
      password: 'N3w-password!',
    })
    expect(change.statusCode).toBe(200)
    const login = await post('/v1/auth/login', { email: user.email, password: 'N3w-password!' })
    expect(login.statusCode).toBe(200)
    // used: the request is over
    expectError(
      await post('/v1/auth/password/change', { token: firstCode, tempToken, password: 'An0ther-pass!' }),
      400,
      'INVALID_CODE',
    )
  })

  it('answers an unknown email like a real one and sends nothing', async () => {
    const email = uniqueEmail('ghost')
    const res = await post(RESEND, { email })
    expect(res.statusCode).toBe(200)
    expect(Object.keys(res.json().data)).toEqual(['tempToken'])
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

  it('refuses a missing or malformed email', async () => {
    expectError(await post(RESEND, {}), 400, 'VALIDATION_ERROR')
    expectError(await post(RESEND, { email: 'not-an-email' }), 400, 'VALIDATION_ERROR')
  })

  it('counts with POST /v1/auth/password/reset under one limit per email', async () => {
    const email = uniqueEmail('limit')
    const codes: number[] = []
    for (const url of ['/v1/auth/password/reset', RESEND, RESEND, '/v1/auth/password/reset', RESEND]) {
      const res = await post(url, { email })
      codes.push(res.statusCode)
      if (res.statusCode === 429) {
        expect(res.json().data.code).toBe('RATE_LIMITED')
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
      }
    }
    expect(codes).toEqual([200, 200, 200, 200, 429])
  })
})
