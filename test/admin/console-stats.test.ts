// The operator console's read routes on a real database and dev chain: custody per coin from the
// ledger and the gas wallet's balance from the chain, the job queue, transfers in flight with
// their ages, deposits and withdrawals per bucket; each refused without a token, to a normal user
// and to an admin without a fresh second factor.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { AVAX, balanceOf, freshAddress, fundUser, settleAll } from '../withdrawals/helpers.ts'
import { adminEnv, createAdmin, expectError, expectOk, runId } from './helpers.ts'

const run = runId()
let t: TestApp
let admin: TestUser
let user: TestUser

const get = (url: string, token = admin.token) => t.req({ method: 'GET', url, token })

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run)
  user = await createUser(t)
  await fundUser(t, 12, user, 'avax', 3n * AVAX)
})
afterAll(() => t?.close())

/**
 * Custody per coin straight from the ledger tables, apart from the service's own query: each part
 * as available balance (less what holds reserve), what pending holds reserve, and the whole as the
 * sum of the balances themselves.
 */
async function ledgerCustody(coin: string) {
  const one = async (q: ReturnType<typeof sql<{ v: string | null }>>) =>
    BigInt((await q.execute(t.database.db)).rows[0]?.v ?? '0')
  const avail = (where: ReturnType<typeof sql>) =>
    one(
      sql<{
        v: string | null
      }>`select sum(balance - held)::text as v from ledger_accounts where coin = ${coin} and ${where}`,
    )
  const users = await avail(sql`kind = 'user'`)
  const escrow = await avail(sql`kind = 'escrow'`)
  const treasury = await avail(sql`kind = 'treasury' and owner_id <> 'fees'`)
  const vault = await avail(sql`kind = 'treasury' and owner_id = 'fees'`)
  const feeEntries = await one(
    sql<{
      v: string | null
    }>`select sum(e.amount)::text as v from ledger_entries e join ledger_accounts a on a.id = e.account_id where a.coin = ${coin} and a.kind = 'platform_fee'`,
  )
  const retired = await avail(sql`kind = 'withdrawal_hold'`)
  const pending = await one(
    sql<{
      v: string | null
    }>`select sum(amount)::text as v from ledger_holds where coin = ${coin} and status = 'pending'`,
  )
  const balances = await one(
    sql<{
      v: string | null
    }>`select sum(balance)::text as v from ledger_accounts where coin = ${coin} and kind in ('user', 'escrow', 'withdrawal_hold', 'treasury')`,
  )
  return {
    users,
    escrow,
    treasury,
    platformFees: vault + feeEntries,
    withdrawalHolds: pending + retired,
    total: balances + feeEntries,
  }
}

async function expectCustodyAddsUp() {
  const data = expectOk(await get('/v1/admin/stats/overview'))
  for (const b of data.balances) {
    const parts = ['users', 'escrow', 'withdrawalHolds', 'platformFees', 'treasury'] as const
    const sum = parts.reduce((s, k) => s + BigInt(b[k]), 0n)
    expect(sum, `${b.coin}: the parts add up to the total`).toBe(BigInt(b.total))
    const ledger = await ledgerCustody(b.coin)
    expect(
      Object.fromEntries([...parts, 'total'].map((k) => [k, BigInt(b[k])])),
      `${b.coin}: each figure is what the ledger holds`,
    ).toEqual(ledger)
  }
  return data
}

describe('GET /v1/admin/stats/*', () => {
  it('refuses a missing token, a normal user and an admin without the second factor', async () => {
    const plain = await createAdmin(t, run, 1, false)
    for (const url of [
      '/v1/admin/stats/overview',
      '/v1/admin/stats/transfer-ages',
      '/v1/admin/stats/flows?coin=avax',
    ]) {
      expectError(await t.req({ method: 'GET', url }), 401, 'UNAUTHENTICATED')
      expectError(await get(url, user.token), 403, 'FORBIDDEN')
      expectError(await get(url, plain.token), 403, 'FORBIDDEN')
    }
  })

  it('overview: what the ledger holds per coin, the gas wallet on chain, the queue', async () => {
    const data = expectOk(await get('/v1/admin/stats/overview'))
    const avax = data.balances.find((b: { coin: string }) => b.coin === 'avax')
    expect(avax).toMatchObject({ coin: 'avax', decimals: 18, users: (3n * AVAX).toString(), escrow: '0' })
    expect(BigInt(avax.total)).toBeGreaterThanOrEqual(3n * AVAX)
    expect(data.balances.map((b: { coin: string }) => b.coin)).toContain('usdc')
    const gas = t.app.services.chain.gasWallet.address.toLowerCase()
    expect(data.gasWallet).toEqual({
      address: gas,
      coin: 'avax',
      decimals: 18,
      balance: (await t.app.services.chain.balanceOf(gas, 'avax')).toString(),
    })
    expect(BigInt(data.gasWallet.balance)).toBeGreaterThan(0n)
    expect(Array.isArray(data.queue)).toBe(true)
    for (const q of data.queue)
      expect(q).toMatchObject({ kind: expect.any(String), queued: expect.any(Number) })
    expect(data.transfers).toEqual([])
  })

  it('a withdrawal in flight shows in the overview and the age buckets, and leaves them when it lands', async () => {
    const to = freshAddress()
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: user.token,
      payload: { amount: 1, coin: 'avax', address: to, password: user.password },
    })
    expect(res.statusCode, res.body).toBe(200)

    let ages = expectOk(await get('/v1/admin/stats/transfer-ages'))
    expect(ages.open).toBe(1)
    expect(ages.buckets[0]).toMatchObject({
      label: '< 1 min',
      fromSeconds: 0,
      toSeconds: 60,
      queued: 1,
      total: 1,
    })
    expect(ages.buckets).toHaveLength(7)
    expect(ages.buckets.at(-1)).toMatchObject({ label: '> 1 day', toSeconds: null, total: 0 })

    t.clock.advance(10 * 60_000)
    ages = expectOk(await get('/v1/admin/stats/transfer-ages'))
    expect(ages.buckets.find((b: { label: string }) => b.label === '5–15 min')).toMatchObject({
      queued: 1,
      total: 1,
    })
    const overview = expectOk(await get('/v1/admin/stats/overview'))
    // (the test clock runs on from the wall clock: a loaded machine adds a second or two)
    expect(overview.transfers).toEqual([
      {
        status: 'queued',
        purpose: 'withdrawal',
        coin: 'avax',
        transfers: 1,
        oldestSeconds: expect.any(Number),
      },
    ])
    expect(overview.transfers[0].oldestSeconds).toBeGreaterThanOrEqual(600)
    expect(overview.transfers[0].oldestSeconds).toBeLessThan(660)
    // The held figure is what pending ledger holds reserve: the withdrawal's amount and fee, each
    // a hold (the transfer has not reserved gas yet); the users' figure is what their wallets can
    // spend.
    const avax = overview.balances.find((b: { coin: string }) => b.coin === 'avax')
    const pending = await t.database.db
      .selectFrom('ledgerHolds')
      .select(['amount', 'kind'])
      .where('coin', '=', 'avax')
      .where('status', '=', 'pending')
      .execute()
    expect(pending.map((h) => h.kind).sort()).toEqual(['withdrawal', 'withdrawal.fee'])
    expect(avax.withdrawalHolds).toBe((AVAX + AVAX / 1000n).toString())
    expect(avax.reserved).toBe(avax.withdrawalHolds)
    expect(avax.users).toBe((await balanceOf(t, user.id, 'avax')).toString())
    expect(BigInt(avax.users)).toBe(3n * AVAX - AVAX - AVAX / 1000n)
    expect(BigInt(avax.total)).toBe(
      BigInt(avax.users) +
        BigInt(avax.escrow) +
        BigInt(avax.withdrawalHolds) +
        BigInt(avax.treasury) +
        BigInt(avax.platformFees),
    )

    await settleAll(t)
    ages = expectOk(await get('/v1/admin/stats/transfer-ages'))
    expect(ages.open).toBe(0)
    const after = expectOk(await get('/v1/admin/stats/overview'))
    expect(after.transfers).toEqual([])
    expect(after.balances.find((b: { coin: string }) => b.coin === 'avax').withdrawalHolds).toBe('0')
    expect(after.balances.find((b: { coin: string }) => b.coin === 'avax').users).toBe(
      (await balanceOf(t, user.id, 'avax')).toString(),
    )
  })

  it('flows: completed deposits and withdrawals per day or hour, every bucket present', async () => {
    const days = expectOk(await get('/v1/admin/stats/flows?coin=AVAX&days=7'))
    expect(days).toMatchObject({ coin: 'avax', decimals: 18, unit: 'day' })
    expect(days.buckets).toHaveLength(7)
    // Summed over the buckets: the day boundary may fall between the deposit and the withdrawal.
    const total = (list: Record<string, string | number>[], k: string) =>
      list.reduce((sum, b) => sum + BigInt(b[k]!), 0n)
    expect(total(days.buckets, 'deposits')).toBe(3n * AVAX)
    expect(total(days.buckets, 'depositCount')).toBe(1n)
    expect(total(days.buckets, 'withdrawals')).toBe(AVAX)
    expect(total(days.buckets, 'withdrawalCount')).toBe(1n)
    expect(days.buckets.slice(0, 5).every((b: { deposits: string }) => b.deposits === '0')).toBe(true)
    const stamps = days.buckets.map((b: { at: string }) => Date.parse(b.at))
    for (let i = 1; i < stamps.length; i++) expect(stamps[i] - stamps[i - 1]).toBe(86_400_000)

    const hours = expectOk(await get('/v1/admin/stats/flows?coin=avax&days=2'))
    expect(hours.unit).toBe('hour')
    expect(hours.buckets).toHaveLength(48)
    const sum = (k: string) =>
      hours.buckets.reduce((s: bigint, b: Record<string, string>) => s + BigInt(b[k]!), 0n)
    expect(sum('deposits')).toBe(3n * AVAX)
    expect(sum('withdrawals')).toBe(AVAX)

    const usdc = expectOk(await get('/v1/admin/stats/flows?coin=usdc'))
    expect(usdc.buckets).toHaveLength(14)
    expect(usdc.buckets.every((b: { deposits: string }) => b.deposits === '0')).toBe(true)
  })

  it('flows: an unknown coin, a period out of range or an unknown parameter is 400', async () => {
    for (const q of ['coin=doge', 'coin=avax&days=0', 'coin=avax&days=91', 'days=3', 'coin=avax&x=1'])
      expectError(await get(`/v1/admin/stats/flows?${q}`), 400, 'VALIDATION_ERROR')
  })

  it('custody adds up per coin: users + escrow + withdrawing + fees + treasury = total, each as the ledger has it', async () => {
    await expectCustodyAddsUp()
    // A withdrawal reserves its amount and fee (withdrawing), then lands: the fee stays with the
    // platform (treasury) and the amount left custody.
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: user.token,
      payload: { amount: 0.5, coin: 'avax', address: freshAddress(), password: user.password },
    })
    expect(res.statusCode, res.body).toBe(200)
    const during = await expectCustodyAddsUp()
    const avax = during.balances.find((b: { coin: string }) => b.coin === 'avax')
    expect(BigInt(avax.withdrawalHolds)).toBeGreaterThanOrEqual(AVAX / 2n)
    await settleAll(t)
    const after = await expectCustodyAddsUp()
    const landed = after.balances.find((b: { coin: string }) => b.coin === 'avax')
    expect(BigInt(landed.withdrawalHolds)).toBe(0n)
    expect(BigInt(landed.treasury)).toBeGreaterThan(0n)
  })
})
