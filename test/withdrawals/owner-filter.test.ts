// The public SDK's `owner` query parameter on GET /v1/withdrawals/ (#23): the caller's own id is
// accepted and changes nothing; any other id is refused, whether or not it names an account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../src/platform/crypto/ids.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { AVAX, freshAddress, fundUser } from './helpers.ts'

let t: TestApp
let alice: TestUser
let bob: TestUser
let withdrawalId: string
beforeAll(async () => {
  t = await createTestApp()
  alice = await createUser(t)
  bob = await createUser(t)
  await fundUser(t, 0, alice, 'avax', AVAX)
  const res = await t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token: alice.token,
    payload: { amount: 0.1, coin: 'avax', address: freshAddress(), password: alice.password },
  })
  expect(res.statusCode, res.body).toBe(200)
  withdrawalId = res.json().data.withdrawalId
})
afterAll(() => t?.close())

const list = (user: TestUser | undefined, query: string) =>
  t.req({ method: 'GET', url: `/v1/withdrawals/${query}`, ...(user ? { token: user.token } : {}) })

describe('GET /v1/withdrawals/?owner=', () => {
  it('accepts the caller’s own id and answers the same list as without it', async () => {
    const plain = await list(alice, '')
    const owned = await list(alice, `?owner=${alice.id}`)
    expect(owned.statusCode, owned.body).toBe(200)
    expect(owned.json()).toEqual(plain.json())
    expect(owned.json().data).toMatchObject({ total: 1, data: [{ _id: withdrawalId, owner: alice.id }] })
    // Combined with the other filters.
    const filtered = await list(alice, `?owner=${alice.id}&coin=avax&status=pending&page=1&limit=5`)
    expect(filtered.json().data).toMatchObject({ total: 1, limit: 5, data: [{ _id: withdrawalId }] })
  })

  it('answers an empty list to a caller without withdrawals who names itself', async () => {
    const own = await list(bob, `?owner=${bob.id}`)
    expect(own.statusCode).toBe(200)
    expect(own.json().data).toMatchObject({ total: 0, data: [] })
  })

  it('refuses another user’s id and an unknown id alike with 403', async () => {
    for (const owner of [alice.id, newId()]) {
      const res = await list(bob, `?owner=${owner}`)
      expectError(res, 403, 'FORBIDDEN')
      expect(res.body).not.toContain(withdrawalId)
    }
  })

  it('refuses a malformed owner (400) and a missing token (401)', async () => {
    for (const owner of ['me', 'x'.repeat(24), `${alice.id}0`, ''])
      expectError(await list(alice, `?owner=${encodeURIComponent(owner)}`), 400, 'VALIDATION_ERROR')
    expectError(await list(alice, `?owner=${alice.id}&owner=${alice.id}`), 400, 'VALIDATION_ERROR')
    expectError(await list(undefined, `?owner=${alice.id}`), 401, 'UNAUTHENTICATED')
  })
})
