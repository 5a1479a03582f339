// GET /v1/payment-public/coins and /v1/payment-public/rpc: the answers of #16 and #17 without a
// token, and their place in the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let user: TestUser
beforeAll(async () => {
  t = await createTestApp()
  user = await createUser(t)
})
afterAll(() => t.close())

describe('public coins and chain configuration', () => {
  it.each([['coins'], ['rpc']])(
    '/v1/payment-public/%s answers what /v1/payment/%s answers, without a token',
    async (name) => {
      const guarded = await t.req({ method: 'GET', url: `/v1/payment/${name}`, token: user.token })
      const open = await t.req({ method: 'GET', url: `/v1/payment-public/${name}` })
      expect(guarded.statusCode).toBe(200)
      expect(open.statusCode, open.body).toBe(200)
      expect(open.json()).toEqual(guarded.json())
      expect(open.json().status).toBe('success')
      // A token, even a bad one, changes nothing on the public route.
      const withBad = await t.req({ method: 'GET', url: `/v1/payment-public/${name}`, token: 'not.a.jwt' })
      expect(withBad.statusCode).toBe(200)
      expect(withBad.json()).toEqual(guarded.json())
    },
  )

  it('the public coins are the active coins', async () => {
    const data = (await t.req({ method: 'GET', url: '/v1/payment-public/coins' })).json().data
    expect(data.map((c: { reference: string }) => c.reference)).toEqual(['avax', 'usdc'])
    expect(data[1].contractAddress).toBe(t.app.services.chain.coin('usdc').contractAddress)
  })

  it('the token routes still need a token', async () => {
    for (const name of ['coins', 'rpc']) {
      const res = await t.req({ method: 'GET', url: `/v1/payment/${name}` })
      expect(res.statusCode).toBe(401)
      expect(res.json().data.code).toBe('UNAUTHENTICATED')
    }
  })

  it('refuses other methods and unknown paths under /v1/payment-public', async () => {
    const post = await t.req({ method: 'POST', url: '/v1/payment-public/coins', payload: {} })
    expect(post.statusCode).toBeGreaterThanOrEqual(400)
    expect(post.statusCode).toBeLessThan(500)
    expect((await t.req({ method: 'GET', url: '/v1/payment-public/wallets' })).statusCode).toBe(404)
  })

  it('are marked public in the OpenAPI document, the token routes are not', async () => {
    const doc = (await t.req({ method: 'GET', url: '/openapi.json' })).json()
    for (const name of ['coins', 'rpc']) {
      const open = doc.paths[`/v1/payment-public/${name}`].get
      const guarded = doc.paths[`/v1/payment/${name}`].get
      expect(open.security).toEqual([])
      expect(guarded.security).toEqual([{ bearer: [] }])
      expect(open.operationId).toBe(`${guarded.operationId}Public`)
      expect(open.responses['200']).toEqual(guarded.responses['200'])
    }
  })
})
