// The caller's transactions (#24, #25): shape, order, pagination, filters and permissions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../src/platform/crypto/ids.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let alice: TestUser
let bob: TestUser
const ids: string[] = []

beforeAll(async () => {
  t = await createTestApp()
  alice = await createUser(t)
  bob = await createUser(t)
  const s = t.app.services
  // 15 records for alice, oldest first, with distinct creation times.
  for (let i = 0; i < 15; i++) {
    t.clock.advance(1000)
    const { id } = await t.database.db.transaction().execute((tx) =>
      s.transactions.record(tx, {
        ownerId: alice.id,
        coin: i % 3 === 0 ? 'avax' : 'usdc',
        amount: i % 3 === 0 ? BigInt(i + 1) * 10n ** 17n : BigInt(i + 1) * 1_000_000n,
        type: i % 2 === 0 ? 'deposit' : 'withdrawal',
        method: i % 2 === 0 ? 'transfer' : 'sent',
        status: i === 14 ? 'pending' : 'completed',
        description: `record ${i}`,
        ...(i === 1 ? { isExternal: true, isFee: true } : {}),
      }),
    )
    ids.push(id)
  }
  await t.database.db.transaction().execute((tx) =>
    s.transactions.record(tx, {
      ownerId: bob.id,
      coin: 'usdc',
      amount: 5_000_000n,
      type: 'deposit',
      method: 'transfer',
      status: 'completed',
    }),
  )
})
afterAll(() => t?.close())

const list = (user: TestUser | undefined, query = '') =>
  t.req({ method: 'GET', url: `/v1/transaction${query}`, ...(user ? { token: user.token } : {}) })

describe('GET /v1/transaction (#24)', () => {
  it('lists the caller’s transactions newest first, 12 per page by default', async () => {
    const res = await list(alice)
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body.status).toBe('success')
    expect(body.data).toMatchObject({ page: 1, pages: 2, limit: 12, total: 15 })
    expect(body.data.transactions.map((x: { _id: string }) => x._id)).toEqual([...ids].reverse().slice(0, 12))
    const page2 = (await list(alice, '?page=2')).json().data
    expect(page2.transactions.map((x: { _id: string }) => x._id)).toEqual([...ids].reverse().slice(12))
    expect((await list(alice, '?page=3')).json().data.transactions).toEqual([])
    expect((await list(bob)).json().data.total).toBe(1)
  })

  it('answers a page with its total in one statement (two past the end)', async () => {
    const statements = async (query: string) => {
      const before = t.database.queryCount()
      const data = (await list(alice, query)).json().data
      return { queries: t.database.queryCount() - before, data }
    }
    await list(alice)
    const page = await statements('?limit=5')
    expect(page.queries).toBe(1)
    expect(page.data).toMatchObject({ total: 15, pages: 3 })
    expect(Object.keys(page.data.transactions[0])).not.toContain('pageTotal')
    const past = await statements('?limit=5&page=9')
    expect(past.queries).toBeLessThanOrEqual(2)
    expect(past.data).toMatchObject({ total: 15, transactions: [] })
  })

  it('shows every field of a transaction with its coin embedded', async () => {
    const data = (await list(alice, '?limit=100')).json().data
    const usdc = await t.app.services.coins.get('usdc')
    const chain = await t.app.services.coins.chain()
    const x = data.transactions.find((r: { _id: string }) => r._id === ids[1])
    expect(x).toEqual({
      _id: ids[1],
      owner: alice.id,
      amount: 2,
      coin: usdc.record,
      chain: chain._id,
      currency: 'usdc',
      usdValue: 2,
      rate: '1',
      description: 'record 1',
      type: 'withdrawal',
      method: 'sent',
      status: 'completed',
      isFee: true,
      isPlatformFee: false,
      isExternal: true,
      responseData: '',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: expect.any(String),
      __v: 0,
    })
    expect(x.coin.order).toEqual(expect.any(Number))
    const avax = data.transactions.find((r: { _id: string }) => r._id === ids[3])
    expect(avax).toMatchObject({ amount: 0.4, currency: 'avax', usdValue: 10, rate: '25' })
    expect(avax).not.toHaveProperty('isExternal')
    expect(avax).not.toHaveProperty('tx')
  })

  it('filters by type, status and coin', async () => {
    const deposits = (await list(alice, '?type=deposit&limit=100')).json().data
    expect(deposits.total).toBe(8)
    expect(deposits.transactions.every((x: { type: string }) => x.type === 'deposit')).toBe(true)
    const pending = (await list(alice, '?status=pending')).json().data
    expect(pending.transactions.map((x: { _id: string }) => x._id)).toEqual([ids[14]])
    const avax = (await list(alice, '?coin=AVAX&limit=100')).json().data
    expect(avax.total).toBe(5)
    const both = (await list(alice, '?coin=usdc&type=withdrawal&limit=5')).json().data
    expect(both).toMatchObject({ total: 5, pages: 1, limit: 5 })
    expect((await list(alice, '?coin=nope')).json().data.total).toBe(0)
  })

  it('refuses bad query values with 400', async () => {
    for (const q of [
      '?limit=101',
      '?limit=0',
      '?page=0',
      '?page=x',
      '?type=bogus',
      '?status=done',
      '?other=1',
    ]) {
      expectError(await list(alice, q), 400, 'VALIDATION_ERROR')
    }
  })

  it('needs a bearer token', async () => {
    expectError(await list(undefined), 401, 'UNAUTHENTICATED')
  })
})

describe('GET /v1/transaction/{id} (#25)', () => {
  it('returns the caller’s transaction', async () => {
    const res = await t.req({ method: 'GET', url: `/v1/transaction/${ids[0]}`, token: alice.token })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data).toMatchObject({ _id: ids[0], owner: alice.id, amount: 0.1, currency: 'avax' })
  })

  it('answers 404 for another user’s transaction and for unknown ids, 400 for malformed ids', async () => {
    expectError(
      await t.req({ method: 'GET', url: `/v1/transaction/${ids[0]}`, token: bob.token }),
      404,
      'NOT_FOUND',
    )
    expectError(
      await t.req({ method: 'GET', url: `/v1/transaction/${newId()}`, token: alice.token }),
      404,
      'NOT_FOUND',
    )
    expectError(
      await t.req({ method: 'GET', url: '/v1/transaction/xyz', token: alice.token }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(await t.req({ method: 'GET', url: `/v1/transaction/${ids[0]}` }), 401, 'UNAUTHENTICATED')
  })
})
