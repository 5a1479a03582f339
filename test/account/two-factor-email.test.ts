// Two-factor by email: set-up with a mailed code, login with an emailed code (another mailed on
// request), the login tempToken's checks, and deactivation with a code mailed for the purpose.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, lastCode, mailCount, type TestUser, uniqueEmail } from '../helpers/factories.ts'
import { api, expectError, expectOk, login, wrong } from './helpers.ts'

let t: TestApp
let a: ReturnType<typeof api>
beforeAll(async () => {
  t = await createTestApp()
  a = api(t)
})
afterAll(() => t.close())

async function enableEmail(u: TestUser) {
  expectOk(await a.post('/v1/account/initiate/2fa', { type: 'email' }, u.token), 202)
  expectOk(await a.post('/v1/account/activate/2fa', { code: await lastCode(t, u.email) }, u.token))
}

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
