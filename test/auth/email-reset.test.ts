// Password reset (#7 start, #8 check the code, #9 change the password).
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
