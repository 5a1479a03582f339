// Operator roles: one table names the permission of every /v1/admin route; each role (admin,
// finance, support) is let through or refused on a representative route of each kind (read, act
// for a customer, move money, configure), every route the role may not call refuses it with 403,
// and roles are given and taken by an admin only, audited, with the step-ups of the account ended.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PERMISSIONS_OF, ROUTE_PERMISSIONS } from '../../src/modules/admin/roles.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import {
  adminEnv,
  auditRows,
  createAdmin,
  elevateSession,
  expectError,
  expectOk,
  runId,
  type TestAdmin,
} from './helpers.ts'

let t: TestApp
const run = runId()
let admin: TestAdmin
const staff: Record<'finance' | 'support', TestAdmin> = {} as never
const NO_ID = 'aaaaaaaaaaaaaaaaaaaaaaaa'

async function makeStaff(role: 'finance' | 'support'): Promise<TestAdmin> {
  const u: TestAdmin = await createUser(t)
  expectOk(
    await t.req({
      method: 'POST',
      url: `/v1/admin/users/${u.id}/role`,
      token: admin.token,
      payload: { role, reason: `joined ${role}` },
    }),
  )
  await elevateSession(t, u)
  return u
}

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run, 0)
  staff.finance = await makeStaff('finance')
  staff.support = await makeStaff('support')
})
afterAll(async () => {
  await t?.close()
})

function adminOperations() {
  const doc = t.app.swagger() as { paths: Record<string, Record<string, { operationId?: string }>> }
  const ops: { method: string; url: string; operationId: string }[] = []
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/admin')) continue
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const url = path.replace(/\{id\}/g, NO_ID).replace(/\{coin\}/g, 'avax')
      ops.push({ method: method.toUpperCase(), url, operationId: op.operationId ?? '' })
    }
  }
  return ops
}

describe('the roles table', () => {
  it('names every /v1/admin route, and only routes that exist', () => {
    const ops = adminOperations()
    const ids = new Set(ops.map((o) => o.operationId))
    expect(ops.filter((o) => !(o.operationId in ROUTE_PERMISSIONS)).map((o) => o.operationId)).toEqual([])
    expect(Object.keys(ROUTE_PERMISSIONS).filter((id) => !ids.has(id))).toEqual([])
  })

  it('refuses each role every route its permissions do not cover (403, naming the roles that may)', async () => {
    for (const role of ['finance', 'support'] as const) {
      const u = staff[role]
      for (const op of adminOperations()) {
        if (PERMISSIONS_OF[role].includes(ROUTE_PERMISSIONS[op.operationId]!)) continue
        const res = await t.req({
          method: op.method as 'GET',
          url: op.url,
          token: u.token,
          ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { payload: { reason: 'a test reason' } }),
        })
        expectError(res, 403, 'FORBIDDEN')
        expect(res.json().message, `${role} ${op.operationId}`).toMatch(`The ${role} role may not do this`)
      }
    }
    // Refusals leave no audit row of theirs.
    const mine = (await auditRows(t)).filter((r) => [staff.finance.id, staff.support.id].includes(r.actorId))
    expect(mine.map((r) => r.action)).toEqual(['admin.session.elevate', 'admin.session.elevate'])
  })
})

describe('each role on a route of each kind', () => {
  const send = (token: string, method: 'GET' | 'POST', url: string, payload?: object) =>
    t.req({ method, url, token, ...(payload ? { payload } : {}) })
  const reason = { reason: 'a test reason' }
  // Allowed: past the guard (an unknown id is 404, a list is 200); refused: 403.
  const cases = [
    {
      kind: 'read',
      method: 'GET',
      url: '/v1/admin/users',
      allowed: 200,
      roles: ['admin', 'finance', 'support'],
    },
    {
      kind: 'customer',
      method: 'POST',
      url: `/v1/admin/users/${NO_ID}/suspend`,
      allowed: 404,
      roles: ['admin', 'support'],
    },
    {
      kind: 'money',
      method: 'POST',
      url: `/v1/admin/withdrawals/${NO_ID}/retry`,
      allowed: 404,
      roles: ['admin', 'finance'],
    },
    {
      kind: 'admin',
      method: 'POST',
      url: `/v1/admin/users/${NO_ID}/role`,
      body: { role: 'support', reason: 'a test reason' },
      allowed: 404,
      roles: ['admin'],
    },
  ] as const

  for (const c of cases)
    it(`${c.kind}: ${c.roles.join(', ')} may ${c.method} ${c.url.replace(NO_ID, '{id}')}`, async () => {
      for (const role of ['admin', 'finance', 'support'] as const) {
        const u = role === 'admin' ? admin : staff[role]
        const res = await send(
          u.token,
          c.method,
          c.url,
          c.method === 'GET' ? undefined : 'body' in c ? c.body : reason,
        )
        if ((c.roles as readonly string[]).includes(role))
          expect(res.statusCode, `${role}: ${res.body}`).toBe(c.allowed)
        else expectError(res, 403, 'FORBIDDEN')
      }
    })

  it('answers the role and its permissions with the session', async () => {
    for (const [role, u, permissions] of [
      ['admin', admin, ['read', 'customer', 'money', 'admin']],
      ['finance', staff.finance, ['read', 'money']],
      ['support', staff.support, ['read', 'customer']],
    ] as const) {
      const s = expectOk(await t.req({ method: 'GET', url: '/v1/admin/session', token: u.token }))
      expect(s).toMatchObject({ role, permissions, elevated: true, secondFactor: 'totp' })
    }
  })
})

describe('setting a role', () => {
  it('is audited, ends the step-ups of the account, and the new role applies at once', async () => {
    const u = await makeStaff('support')
    expectOk(await t.req({ method: 'GET', url: '/v1/admin/users', token: u.token }))
    const set = (role: string, id = u.id, token = admin.token) =>
      t.req({
        method: 'POST',
        url: `/v1/admin/users/${id}/role`,
        token,
        payload: { role, reason: `now ${role}` },
      })
    const data = expectOk(await set('finance'))
    expect(data).toMatchObject({ _id: u.id, role: 'finance' })
    // The unlocked session ended; a new step-up gives the finance role.
    expectError(await t.req({ method: 'GET', url: '/v1/admin/users', token: u.token }), 403, 'FORBIDDEN')
    await elevateSession(t, u)
    expect(expectOk(await t.req({ method: 'GET', url: '/v1/admin/session', token: u.token })).role).toBe(
      'finance',
    )
    expect(
      (
        await t.req({
          method: 'POST',
          url: `/v1/admin/withdrawals/${NO_ID}/retry`,
          token: u.token,
          payload: reason(),
        })
      ).statusCode,
    ).toBe(404)

    expectError(await set('finance'), 409, 'ROLE_ALREADY_SET')
    expectError(await set('finance', admin.id), 409, 'OWN_ACCOUNT_REFUSED')
    expectError(await set('support', NO_ID), 404, 'NOT_FOUND')
    expectError(await set('owner'), 400, 'VALIDATION_ERROR')
    expectError(
      await t.req({
        method: 'POST',
        url: `/v1/admin/users/${u.id}/role`,
        token: admin.token,
        payload: { role: 'user' },
      }),
      400,
      'VALIDATION_ERROR',
    )
    // Only an admin sets roles.
    expectError(await set('admin', u.id, u.token), 403, 'FORBIDDEN')

    // `user` takes the role away: the account is no operator any more.
    expect(expectOk(await set('user')).role).toBe('user')
    expectError(await t.req({ method: 'GET', url: '/v1/admin/session', token: u.token }), 403, 'FORBIDDEN')

    const rows = (await auditRows(t, 'role.set')).filter((r) => r.targetId === u.id)
    expect(rows.map((r) => [r.actorId, r.reason, r.details])).toEqual([
      [admin.id, 'joined support', { role: 'support', previous: 'user' }],
      [admin.id, 'now finance', { role: 'finance', previous: 'support' }],
      [admin.id, 'now user', { role: 'user', previous: 'finance' }],
    ])
  })

  it('lets support suspend customers but not operators; an admin suspends and restores operators', async () => {
    const suspend = (token: string, id: string, verb = 'suspend') =>
      t.req({
        method: 'POST',
        url: `/v1/admin/users/${id}/${verb}`,
        token,
        payload: { reason: 'a test reason' },
      })
    const customer = await createUser(t)
    expectOk(await suspend(staff.support.token, customer.id))
    expectOk(await suspend(staff.support.token, customer.id, 'unsuspend'))
    // another operator, an admin by role, and an ADMIN_EMAILS admin: refused to support
    const colleague = await makeStaff('finance')
    const configured = await createAdmin(t, run, 2, false)
    for (const target of [colleague.id, admin.id, configured.id])
      expectError(await suspend(staff.support.token, target), 403, 'FORBIDDEN')
    expectOk(await suspend(admin.token, colleague.id))
    expectError(await suspend(staff.support.token, colleague.id, 'unsuspend'), 403, 'FORBIDDEN')
    expectOk(await suspend(admin.token, colleague.id, 'unsuspend'))
  })

  it('never takes the role of an ADMIN_EMAILS account, and gives none to a suspended account', async () => {
    const configured = await createAdmin(t, run, 1, false)
    expectError(
      await t.req({
        method: 'POST',
        url: `/v1/admin/users/${configured.id}/role`,
        token: admin.token,
        payload: { role: 'support', reason: 'demote' },
      }),
      409,
      'ROLE_SET_BY_CONFIG',
    )
    const u = await createUser(t)
    expectOk(
      await t.req({
        method: 'POST',
        url: `/v1/admin/users/${u.id}/suspend`,
        token: admin.token,
        payload: { reason: 'fraud report' },
      }),
    )
    expectError(
      await t.req({
        method: 'POST',
        url: `/v1/admin/users/${u.id}/role`,
        token: admin.token,
        payload: { role: 'support', reason: 'hire' },
      }),
      422,
      'ACCOUNT_SUSPENDED',
    )
  })
})

function reason() {
  return { reason: 'a test reason' }
}
