// Every guarded account route refuses a missing, malformed, forged or revoked bearer token, and a
// caller only ever acts on its own account.
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { api, expectError, expectOk } from './helpers.ts'

let t: TestApp
let a: ReturnType<typeof api>
beforeAll(async () => {
  t = await createTestApp()
  a = api(t)
})
afterAll(() => t.close())

const ROUTES: Array<{ method: 'GET' | 'POST' | 'PATCH' | 'PUT'; url: string; payload?: object }> = [
  { method: 'GET', url: '/v1/account' },
  { method: 'PATCH', url: '/v1/account/update', payload: { firstName: 'X' } },
  { method: 'PUT', url: '/v1/account/password/change', payload: { oldPassword: 'a', newPassword: 'b' } },
  { method: 'GET', url: '/v1/account/user/0123456789abcdef01234567' },
  { method: 'GET', url: '/v1/account/user' },
  { method: 'POST', url: '/v1/account/initiate/2fa', payload: { type: 'email' } },
  { method: 'POST', url: '/v1/account/activate/2fa', payload: { code: '123456' } },
  { method: 'POST', url: '/v1/account/deactivate/2fa', payload: { code: '123456' } },
  { method: 'POST', url: '/v1/account/2fa/email', payload: {} },
  { method: 'POST', url: '/v1/account/logout' },
  { method: 'POST', url: '/v1/account/delete-account', payload: { password: 'x' } },
]

describe.each(ROUTES)('$method $url', (route) => {
  const send = (headers: Record<string, string>) =>
    t.req({
      method: route.method,
      url: route.url,
      headers,
      ...(route.payload ? { payload: route.payload } : {}),
    })

  it('refuses a missing, malformed or forged token with 401', async () => {
    expectError(await send({}), 401, 'UNAUTHENTICATED')
    expectError(await send({ authorization: 'Bearer' }), 401, 'UNAUTHENTICATED')
    expectError(await send({ authorization: 'Basic dXNlcjpwYXNz' }), 401, 'UNAUTHENTICATED')
    expectError(await send({ authorization: 'Bearer not.a.jwt' }), 401, 'UNAUTHENTICATED')
    const forged = await new SignJWT({ typ: 'access' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('workpay')
      .setSubject('0123456789abcdef01234567')
      .setJti('0123456789abcdef01234567')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('some-other-secret-some-other-secret'))
    expectError(await send({ authorization: `Bearer ${forged}` }), 401, 'UNAUTHENTICATED')
  })

  it('refuses a revoked token with 401', async () => {
    const u = await createUser(t)
    expectOk(await a.post('/v1/account/logout', undefined, u.token))
    expectError(await send({ authorization: `Bearer ${u.token}` }), 401, 'UNAUTHENTICATED')
  })

  it('refuses a temporary token used as a bearer token', async () => {
    const reset = expectOk(await a.post('/v1/auth/password/reset', { email: (await createUser(t)).email }))
    expectError(await send({ authorization: `Bearer ${reset.tempToken.token}` }), 401, 'UNAUTHENTICATED')
  })
})

describe('one account’s token against another’s data', () => {
  it('updates, two-factor changes and logout only touch the caller', async () => {
    const alice = await createUser(t, { firstName: 'Alice' })
    const bob = await createUser(t, { firstName: 'Bob' })
    expectOk(await a.patch('/v1/account/update', { firstName: 'Mallory' }, bob.token))
    expectOk(await a.post('/v1/account/initiate/2fa', { type: 'email' }, bob.token), 202)
    expect(expectOk(await a.get('/v1/account', alice.token))).toMatchObject({
      firstName: 'Alice',
      twoFa: { status: false },
    })
    // Bob's view of Alice is the public form only.
    const seen = expectOk(await a.get(`/v1/account/user/${alice.id}`, bob.token))
    expect(seen.email).toBeUndefined()
    expect(seen.referralCode).toBeUndefined()
    expectOk(await a.post('/v1/account/logout', undefined, bob.token))
    expectOk(await a.get('/v1/account', alice.token))
  })
})
