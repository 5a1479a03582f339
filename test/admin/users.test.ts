// Accounts for operators: search, and suspension (locked out at once: the token it had is refused,
// login is refused, so no withdrawal can be asked for; lifted, it logs in again), each audited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId } from './helpers.ts'

let t: TestApp
const run = runId()
let admin: TestUser

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run, 0)
})
afterAll(async () => {
  await t?.close()
})

const post = (url: string, payload: object, token = admin.token) =>
  t.req({ method: 'POST', url, payload, token })

describe('user search', () => {
  it('finds accounts by email, name and id, filters by role and suspension, and pages', async () => {
    const u = await createUser(t, { firstName: 'Zebulon', lastName: 'Quartz' })
    const get = (qs: string) => t.req({ method: 'GET', url: `/v1/admin/users?${qs}`, token: admin.token })
    const byEmail = expectOk(await get(`q=${encodeURIComponent(u.email.slice(0, 12).toUpperCase())}`))
    expect(byEmail.data.map((x: any) => x._id)).toEqual([u.id])
    expect(byEmail.data[0]).toMatchObject({
      _id: u.id,
      email: u.email,
      firstName: 'Zebulon',
      lastName: 'Quartz',
      role: 'user',
      isVerified: true,
      suspended: false,
      suspendedAt: null,
      twoFaEnabled: false,
    })
    expect(byEmail.data[0]).not.toHaveProperty('passwordHash')
    expect(expectOk(await get('q=zebulon%20quartz')).total).toBe(1)
    expect(expectOk(await get(`q=${u.id}`)).total).toBe(1)
    expect(expectOk(await get('role=admin')).data.map((x: any) => x._id)).toEqual([admin.id])
    expect(expectOk(await get('q=%25')).total).toBe(0)
    const paged = expectOk(await get('limit=1&page=2'))
    expect(paged).toMatchObject({ page: 2, limit: 1 })
    expect(paged.total).toBeGreaterThanOrEqual(2)
    expectError(await get('role=root'), 400, 'VALIDATION_ERROR')
    expectError(await get('page=0'), 400, 'VALIDATION_ERROR')
    expect(
      expectOk(await t.req({ method: 'GET', url: `/v1/admin/users/${u.id}`, token: admin.token }))._id,
    ).toBe(u.id)
    expectError(
      await t.req({ method: 'GET', url: '/v1/admin/users/aaaaaaaaaaaaaaaaaaaaaaaa', token: admin.token }),
      404,
      'NOT_FOUND',
    )
    expectError(
      await t.req({ method: 'GET', url: '/v1/admin/users/nope', token: admin.token }),
      400,
      'VALIDATION_ERROR',
    )
  })
})

describe('suspension', () => {
  it('locks the account out at once and is lifted again, each step audited', async () => {
    const u = await createUser(t)
    // A second session of the same account.
    const second = (
      await t.req({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: u.email, password: u.password },
      })
    ).json().data.token as string
    expectOk(await t.req({ method: 'GET', url: '/v1/account', token: second }))

    const data = expectOk(await post(`/v1/admin/users/${u.id}/suspend`, { reason: 'fraud report 17' }))
    expect(data).toMatchObject({ _id: u.id, suspended: true, suspendedReason: 'fraud report 17' })
    expect(typeof data.suspendedAt).toBe('string')

    // Every token it had is refused at once, for reads and for money.
    for (const token of [u.token, second]) {
      expectError(await t.req({ method: 'GET', url: '/v1/account', token }), 401, 'UNAUTHENTICATED')
      expectError(
        await t.req({
          method: 'POST',
          url: '/v1/withdrawals/',
          token,
          payload: {
            amount: 1,
            coin: 'avax',
            address: '0x000000000000000000000000000000000000dEaD',
            password: u.password,
          },
        }),
        401,
        'UNAUTHENTICATED',
      )
    }
    const sessions = await t.database.db
      .selectFrom('sessions')
      .select('revokedAt')
      .where('userId', '=', u.id)
      .execute()
    expect(sessions.length).toBe(2)
    expect(sessions.every((s) => s.revokedAt !== null)).toBe(true)
    // Logging in is refused (the right password learns only that the account is suspended).
    expectError(
      await t.req({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: u.email, password: u.password },
      }),
      403,
      'FORBIDDEN',
    )
    expectError(
      await t.req({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: u.email, password: 'Wr0ng!pass' },
      }),
      401,
      'INVALID_CREDENTIALS',
    )
    expectError(
      await post(`/v1/admin/users/${u.id}/suspend`, { reason: 'again' }),
      409,
      'ACCOUNT_ALREADY_SUSPENDED',
    )
    expectError(
      await post(`/v1/admin/users/${admin.id}/suspend`, { reason: 'myself' }),
      409,
      'OWN_ACCOUNT_REFUSED',
    )

    const lifted = expectOk(await post(`/v1/admin/users/${u.id}/unsuspend`, { reason: 'cleared' }))
    expect(lifted).toMatchObject({ suspended: false, suspendedAt: null, suspendedReason: null })
    // The old tokens stay dead; a new login works.
    expectError(await t.req({ method: 'GET', url: '/v1/account', token: u.token }), 401, 'UNAUTHENTICATED')
    const again = await t.req({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: u.email, password: u.password },
    })
    expect(again.statusCode, again.body).toBe(200)
    expectError(
      await post(`/v1/admin/users/${u.id}/unsuspend`, { reason: 'again' }),
      409,
      'ACCOUNT_NOT_SUSPENDED',
    )

    const rows = (await auditRows(t)).filter((r) => r.targetId === u.id)
    expect(rows.map((r) => [r.action, r.reason])).toEqual([
      ['user.suspend', 'fraud report 17'],
      ['user.unsuspend', 'cleared'],
    ])
  })

  it('is refused for a normal user and leaves no audit row', async () => {
    const u = await createUser(t)
    const other = await createUser(t)
    const before = (await auditRows(t)).length
    expectError(
      await post(`/v1/admin/users/${other.id}/suspend`, { reason: 'no right' }, u.token),
      403,
      'FORBIDDEN',
    )
    expect((await auditRows(t)).length).toBe(before)
    expectOk(await t.req({ method: 'GET', url: '/v1/account', token: other.token }))
  })
})
