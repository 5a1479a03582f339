// The caller's transaction statistics (GET /v1/transaction/stats, /aggregate/stats): buckets per
// UTC day or month, zero-filled counts, totals per type and coin, the caller's own records only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RecordTransaction } from '../../src/modules/transactions/service.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let alice: TestUser
let bob: TestUser
const DAY = 86_400_000
/** when each of alice's counted records was made */
const made: { at: Date; type: string; coin: string; amount: number }[] = []

async function record(owner: TestUser, input: Omit<RecordTransaction, 'ownerId' | 'method'>, units: number) {
  const at = t.clock.now()
  await t.database.db
    .transaction()
    .execute((tx) =>
      t.app.services.transactions.record(tx, { ownerId: owner.id, method: 'transfer', ...input }),
    )
  if (owner === alice && input.status !== 'failed')
    made.push({ at, type: input.type, coin: input.coin, amount: units })
}

beforeAll(async () => {
  t = await createTestApp()
  alice = await createUser(t)
  bob = await createUser(t)
  await record(alice, { coin: 'usdc', amount: 5_000_000n, type: 'deposit', status: 'completed' }, 5)
  await record(alice, { coin: 'avax', amount: 5n * 10n ** 17n, type: 'withdrawal', status: 'completed' }, 0.5)
  await record(alice, { coin: 'usdc', amount: 9_000_000n, type: 'withdrawal', status: 'failed' }, 9)
  t.clock.advance(DAY)
  await record(alice, { coin: 'usdc', amount: 2_000_000n, type: 'deposit', status: 'pending' }, 2)
  t.clock.advance(60 * DAY)
  await record(alice, { coin: 'usdc', amount: 1_000_000n, type: 'deposit', status: 'completed' }, 1)
})
afterAll(() => t?.close())

const get = (user: TestUser | undefined, url: string) =>
  t.req({ method: 'GET', url, ...(user ? { token: user.token } : {}) })
const day = (d: Date) => d.toISOString().slice(0, 10)
const month = (d: Date) => `${d.toISOString().slice(0, 7)}-01`

describe('GET /v1/transaction/stats', () => {
  it('counts per day over the last 7 days by default, zero-filled, with the ISO weekday as _id', async () => {
    const res = await get(alice, '/v1/transaction/stats')
    expect(res.statusCode, res.body).toBe(200)
    const data = res.json().data as { _id: number; count: number; date: string }[]
    expect(data).toHaveLength(7)
    const today = t.clock.now()
    expect(data[6]).toEqual({ _id: today.getUTCDay() || 7, count: 1, date: day(today) })
    expect(data[0]!.date).toBe(day(new Date(today.getTime() - 6 * DAY)))
    expect(data.slice(0, 6).every((b) => b.count === 0)).toBe(true)
    const monthly = (await get(alice, '/v1/transaction/stats?format=monthly')).json().data
    expect(monthly).toHaveLength(30)
    expect(monthly[29]).toEqual({ _id: today.getUTCDate(), count: 1, date: day(today) })
  })

  it('counts per month over the last 12 months, failed records left out', async () => {
    const data = (await get(alice, '/v1/transaction/stats?format=yearly')).json().data as {
      _id: number
      count: number
      date: string
    }[]
    expect(data).toHaveLength(12)
    const now = t.clock.now()
    expect(data[11]!.date).toBe(month(now))
    expect(data[11]!._id).toBe(now.getUTCMonth() + 1)
    const expected = new Map<string, number>()
    for (const m of made) expected.set(month(m.at), (expected.get(month(m.at)) ?? 0) + 1)
    for (const b of data) expect(b.count, b.date).toBe(expected.get(b.date) ?? 0)
    expect(data.reduce((s, b) => s + b.count, 0)).toBe(4)
  })

  it('shows each caller their own records only', async () => {
    const data = (await get(bob, '/v1/transaction/stats?format=yearly')).json().data
    expect(data.every((b: { count: number }) => b.count === 0)).toBe(true)
  })

  it('refuses an unknown format or query field, and a missing token', async () => {
    expectError(await get(alice, '/v1/transaction/stats?format=daily'), 400, 'VALIDATION_ERROR')
    expectError(await get(alice, '/v1/transaction/stats?coin=usdc'), 400, 'VALIDATION_ERROR')
    expectError(await get(undefined, '/v1/transaction/stats'), 401, 'UNAUTHENTICATED')
  })
})

describe('GET /v1/transaction/aggregate/stats', () => {
  it('sums per type, coin and month over the last 12 months by default', async () => {
    const res = await get(alice, '/v1/transaction/aggregate/stats')
    expect(res.statusCode, res.body).toBe(200)
    const expected = new Map<
      string,
      { type: string; coin: string; date: string; amount: number; count: number }
    >()
    for (const m of made) {
      const key = `${month(m.at)} ${m.type} ${m.coin}`
      const row = expected.get(key) ?? { type: m.type, coin: m.coin, date: month(m.at), amount: 0, count: 0 }
      row.amount += m.amount
      row.count += 1
      expected.set(key, row)
    }
    const want = [...expected.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, r]) => r)
    const data = res.json().data
    expect(data.map(({ usdValue: _, ...r }: { usdValue: number }) => r)).toEqual(
      want.map((r) => ({ type: r.type, coin: r.coin, amount: r.amount, count: r.count, date: r.date })),
    )
    for (const r of data.filter((x: { coin: string }) => x.coin === 'usdc')) expect(r.usdValue).toBe(r.amount)
  })

  it('answers the last 7 days weekly, nothing for someone else, and the same errors', async () => {
    const week = (await get(alice, '/v1/transaction/aggregate/stats?format=weekly')).json().data
    expect(week).toEqual([
      { type: 'deposit', coin: 'usdc', amount: 1, usdValue: 1, count: 1, date: day(t.clock.now()) },
    ])
    expect((await get(bob, '/v1/transaction/aggregate/stats')).json().data).toEqual([])
    expectError(await get(alice, '/v1/transaction/aggregate/stats?format=hourly'), 400, 'VALIDATION_ERROR')
    expectError(await get(undefined, '/v1/transaction/aggregate/stats'), 401, 'UNAUTHENTICATED')
  })

  it('leaves GET /v1/transaction/{id} to ids', async () => {
    expectError(await get(alice, '/v1/transaction/0123456789abcdef01234567'), 404, 'NOT_FOUND')
  })
})
