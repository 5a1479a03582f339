// GET /v1/wallet/{id}: one wallet by the id the client already holds (the SDK asks for it with a
// doubled slash, `/v1/wallet//{id}`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let alice: TestUser
let bob: TestUser

beforeAll(async () => {
  t = await createTestApp()
  alice = await createUser(t)
  bob = await createUser(t)
})
afterAll(() => t.close())

describe('GET /v1/wallet/{id}', () => {
  it('answers the #19 form by wallet _id and by coin reference, also with a doubled slash', async () => {
    const byCoin = await t.req({ method: 'GET', url: '/v1/wallet/coin/usdc', token: alice.token })
    expect(byCoin.statusCode, byCoin.body).toBe(200)
    const wallet = byCoin.json().data
    for (const url of [`/v1/wallet/${wallet._id}`, `/v1/wallet//${wallet._id}`, '/v1/wallet/usdc']) {
      const res = await t.req({ method: 'GET', url, token: alice.token })
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
      expect(res.json().data).toEqual(wallet)
    }
  })

  it("answers 404 for another user's wallet and for an unknown id", async () => {
    const bobs = await t.req({ method: 'GET', url: '/v1/wallet/coin/usdc', token: bob.token })
    const other = await t.req({
      method: 'GET',
      url: `/v1/wallet/${bobs.json().data._id}`,
      token: alice.token,
    })
    expect(other.statusCode).toBe(404)
    expect(other.json().data.code).toBe('NOT_FOUND')
    const unknown = await t.req({ method: 'GET', url: '/v1/wallet/nothing-here', token: alice.token })
    expect(unknown.statusCode).toBe(404)
  })

  it('still routes the fixed wallet paths', async () => {
    const res = await t.req({ method: 'GET', url: '/v1/wallet/coin/avax', token: alice.token })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.coin).toBe('AVAX')
  })
})
