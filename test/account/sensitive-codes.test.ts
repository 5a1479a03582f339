// Codes that confirm a sensitive action (POST /v1/account/2fa/email and verifySensitiveCode): a
// mailed code, or the authenticator's when google_auth is on; each used once, and locked after
// five wrong ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, lastCode } from '../helpers/factories.ts'
import { api, authenticator, expectOk, wrong } from './helpers.ts'

let t: TestApp
let a: ReturnType<typeof api>
beforeAll(async () => {
  t = await createTestApp()
  a = api(t)
})
afterAll(() => t.close())

const { codeFromUri, enableGoogle } = authenticator(() => t)

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

  it('tells a used code apart from a code typed when none is pending', async () => {
    const u = await createUser(t)
    await expect(verify(u.id, '123456')).rejects.toMatchObject({
      code: 'INVALID_CODE',
      message: expect.stringMatching(/No code was requested/),
    })
    expectOk(await a.post('/v1/account/2fa/email', {}, u.token))
    const code = await lastCode(t, u.email)
    await expect(verify(u.id, code)).resolves.toBeUndefined()
    await expect(verify(u.id, code)).rejects.toMatchObject({
      code: 'INVALID_CODE',
      message: expect.stringMatching(/already been used/),
    })
    await expect(verify(u.id, wrong(code))).rejects.toMatchObject({
      code: 'INVALID_CODE',
      message: expect.stringMatching(/No code is pending/),
    })
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
