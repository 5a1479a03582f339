// Who may read the global search and the detail pages: every operator role (admin, finance,
// support) with a fresh second factor; a normal user and an operator without one are refused (403),
// a caller without a token is 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROUTE_PERMISSIONS } from '../../src/modules/admin/roles.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  adminEnv,
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
let customer: TestUser
const ops: Record<string, TestAdmin> = {}

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run, 0)
  customer = await createUser(t)
  ops.admin = admin
  for (const role of ['finance', 'support'] as const) {
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
    ops[role] = u
  }
})
afterAll(async () => {
  await t?.close()
})

const NO_ID = 'aaaaaaaaaaaaaaaaaaaaaaaa'
/** Each new read route, with a request that answers 200 or the route's own 404. */
const routes = () => [
  {
    operationId: 'adminSearch',
    url: `/v1/admin/search?q=${encodeURIComponent(customer.email)}`,
    status: 200,
  },
  { operationId: 'adminChain', url: '/v1/admin/chain', status: 200 },
  { operationId: 'adminUserOverview', url: `/v1/admin/users/${customer.id}/overview`, status: 200 },
  { operationId: 'adminWithdrawal', url: `/v1/admin/withdrawals/${NO_ID}`, status: 404 },
  { operationId: 'adminEscrowLeg', url: `/v1/admin/escrow-legs/${NO_ID}`, status: 404 },
  { operationId: 'adminEscrow', url: `/v1/admin/escrows/${NO_ID}`, status: 404 },
  { operationId: 'adminJob', url: `/v1/admin/jobs/${NO_ID}`, status: 404 },
  { operationId: 'adminDispute', url: `/v1/admin/disputes/${NO_ID}`, status: 404 },
]

describe('the search and detail routes', () => {
  it('are reads in the roles table', () => {
    for (const r of routes()) expect(ROUTE_PERMISSIONS[r.operationId], r.operationId).toBe('read')
  })

  it('answer every operator role', async () => {
    for (const role of ['admin', 'finance', 'support']) {
      for (const r of routes()) {
        const res = await t.req({ method: 'GET', url: r.url, token: ops[role]!.token })
        expect(res.statusCode, `${role} ${r.url}: ${res.body}`).toBe(r.status)
        if (r.status === 404) expect(res.json().data.code).toBe('NOT_FOUND')
      }
    }
    const found = expectOk(await t.req({ method: 'GET', url: routes()[0]!.url, token: ops.support!.token }))
    expect(found.hits).toEqual([expect.objectContaining({ kind: 'user', id: customer.id })])
    const page = expectOk(await t.req({ method: 'GET', url: routes()[2]!.url, token: ops.finance!.token }))
    expect(page.user).toMatchObject({ _id: customer.id, email: customer.email })
  })

  it('refuse a caller without a token, a normal user and an operator without a fresh second factor', async () => {
    const stale: TestAdmin = await createAdmin(t, run, 1, false)
    for (const r of routes()) {
      expectError(await t.req({ method: 'GET', url: r.url }), 401, 'UNAUTHENTICATED')
      expectError(await t.req({ method: 'GET', url: r.url, token: customer.token }), 403, 'FORBIDDEN')
      expectError(await t.req({ method: 'GET', url: r.url, token: stale.token }), 403, 'FORBIDDEN')
    }
  })
})
