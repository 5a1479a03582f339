import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, PASSWORD } from '../helpers/factories.ts'
import { api, expectError, expectOk, login } from './helpers.ts'

let t: TestApp
let a: ReturnType<typeof api>
beforeAll(async () => {
  t = await createTestApp()
  a = api(t)
})
afterAll(() => t.close())

const NEW_PASSWORD = 'N3w!password'

async function secondSession(email: string, password = PASSWORD) {
  const res = await login(t, email, password)
  return expectOk(res).token as string
}

describe('PUT /v1/account/password/change (#38)', () => {
  it('changes the password, keeps the caller’s session and revokes every other one', async () => {
    const u = await createUser(t)
    const other = await secondSession(u.email)
    const res = await a.put(
      '/v1/account/password/change',
      { oldPassword: u.password, newPassword: NEW_PASSWORD },
      u.token,
    )
    expect(res.json()).toEqual({ status: 'success', message: expect.any(String), data: {} })
    expect(res.statusCode).toBe(200)
    expectOk(await a.get('/v1/account', u.token))
    expectError(await a.get('/v1/account', other), 401, 'UNAUTHENTICATED')
    expectError(await login(t, u.email, u.password), 401, 'INVALID_CREDENTIALS')
    expectOk(await login(t, u.email, NEW_PASSWORD))
  })

  it('refuses a wrong old password with 401 INVALID_CREDENTIALS and changes nothing', async () => {
    const u = await createUser(t)
    expectError(
      await a.put(
        '/v1/account/password/change',
        { oldPassword: 'Wr0ng!pass', newPassword: NEW_PASSWORD },
        u.token,
      ),
      401,
      'INVALID_CREDENTIALS',
    )
    expectOk(await login(t, u.email, u.password))
  })

  it('refuses a weak new password and one equal to the old', async () => {
    const u = await createUser(t)
    const weak = await a.put(
      '/v1/account/password/change',
      { oldPassword: u.password, newPassword: 'short' },
      u.token,
    )
    expectError(weak, 400, 'WEAK_PASSWORD')
    expect(weak.json().data.errors[0].path).toBe('/newPassword')
    expectError(
      await a.put(
        '/v1/account/password/change',
        { oldPassword: u.password, newPassword: 'alllowercase' },
        u.token,
      ),
      400,
      'WEAK_PASSWORD',
    )
    const same = await a.put(
      '/v1/account/password/change',
      { oldPassword: u.password, newPassword: u.password },
      u.token,
    )
    expectError(same, 400, 'VALIDATION_ERROR')
    expect(same.json().data.errors[0].path).toBe('/newPassword')
    expectOk(await login(t, u.email, u.password))
  })

  it.each([
    {},
    { oldPassword: 'x' },
    { newPassword: 'x' },
    { oldPassword: 1, newPassword: 'Abcdefg1!' },
    { oldPassword: 'a', newPassword: 'b', extra: 1 },
  ])('refuses a malformed body with 400 (case %#)', async (body) => {
    const u = await createUser(t)
    expectError(await a.put('/v1/account/password/change', body, u.token), 400, 'VALIDATION_ERROR')
  })
})

describe('POST /v1/account/logout (#45)', () => {
  it('revokes only the presented session', async () => {
    const u = await createUser(t)
    const other = await secondSession(u.email)
    const res = await a.post('/v1/account/logout', undefined, u.token)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'success', message: expect.any(String), data: {} })
    expectError(await a.get('/v1/account', u.token), 401, 'UNAUTHENTICATED')
    expectError(await a.post('/v1/account/logout', undefined, u.token), 401, 'UNAUTHENTICATED')
    expectOk(await a.get('/v1/account', other))
  })
})

describe('POST /v1/account/delete-account (#46)', () => {
  it('revokes every session, removes personal data, keeps the record id, and frees the email', async () => {
    const u = await createUser(t, { firstName: 'Del', lastName: 'Etme' })
    const other = await secondSession(u.email)
    const tagRes = expectOk(
      await a.patch(
        '/v1/account/update',
        {
          profile: { contact: { phone: '+14155550123' }, talent: { tags: ['haskell-del'] } },
          socials: { github: 'https://github.com/del' },
        },
        u.token,
      ),
    )
    expect(tagRes.profile.talent.tagsIds[0].entryCount).toBe(1)
    const res = await a.post('/v1/account/delete-account', { password: u.password }, u.token)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'success', message: expect.any(String), data: {} })
    expectError(await a.get('/v1/account', u.token), 401, 'UNAUTHENTICATED')
    expectError(await a.get('/v1/account', other), 401, 'UNAUTHENTICATED')
    expectError(await login(t, u.email, u.password), 401, 'INVALID_CREDENTIALS')
    const row = await t.database.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({
      email: null,
      firstName: '',
      lastName: '',
      passwordHash: null,
      profile: {},
      socials: {},
      web3Address: null,
      twoFaSecret: null,
      searchText: '',
      userName: `deleted-${u.id}`,
    })
    expect(row.deletedAt).toBeInstanceOf(Date)
    const tag = await t.database.db
      .selectFrom('tags')
      .select('entryCount')
      .where('key', '=', 'haskell-del')
      .executeTakeFirstOrThrow()
    expect(tag.entryCount).toBe(0)
    const mails = await t.database.db
      .selectFrom('mails')
      .select('id')
      .where('toAddress', '=', u.email)
      .execute()
    expect(mails).toEqual([])
    // The email can sign up again, as a new account.
    const again = await createUser(t, { email: u.email })
    expect(again.id).not.toBe(u.id)
    expect(expectOk(await a.get('/v1/account', again.token)).firstName).toBe('Test')
  })

  it('refuses a wrong or missing password', async () => {
    const u = await createUser(t)
    expectError(
      await a.post('/v1/account/delete-account', { password: 'Wr0ng!pass' }, u.token),
      401,
      'INVALID_CREDENTIALS',
    )
    expectError(await a.post('/v1/account/delete-account', {}, u.token), 400, 'VALIDATION_ERROR')
    expectError(await a.post('/v1/account/delete-account', undefined, u.token), 400, 'VALIDATION_ERROR')
    expectOk(await a.get('/v1/account', u.token))
  })

  it('needs the caller’s own password: another user’s does not delete either account', async () => {
    const victim = await createUser(t)
    const attacker = await createUser(t, { password: 'Att4cker!pw' })
    expectError(
      await a.post('/v1/account/delete-account', { password: victim.password }, attacker.token),
      401,
      'INVALID_CREDENTIALS',
    )
    expectOk(await a.get('/v1/account', victim.token))
    expectOk(await a.get('/v1/account', attacker.token))
  })
})
