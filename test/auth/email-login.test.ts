// Email login (#4) and the bearer tokens the API accepts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { createUser, uniqueEmail } from '../helpers/factories.ts'
import { authFlows } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const { post, register } = authFlows(() => t)

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
