// The dashboard's outflow figure (GET /v1/admin/stats/flows, `withdrawals`) counts only value that
// left for outside addresses. The test moves value every way the platform can: withdrawals to
// outside addresses (AVAX and USDC, the token one topped up with gas first), a withdrawal to another
// user's deposit address, an in-app escrow payment and its release legs (payout and platform fee);
// then compares the figure with what the outside addresses hold on the chain, read independently.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initiate, post } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { AVAX, freshAddress, fundUser, settleAll, USDC, walletAddress } from '../withdrawals/helpers.ts'
import { adminEnv, createAdmin, expectOk, runId, type TestAdmin } from './helpers.ts'

const run = runId()
let t: TestApp
let admin: TestAdmin
let payer: TestUser
let receiver: TestUser

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run)
  payer = await createUser(t)
  receiver = await createUser(t)
  await fundUser(t, 14, payer, 'avax', 6n * AVAX)
  await fundUser(t, 15, payer, 'usdc', 40n * USDC)
})
afterAll(() => t?.close())

async function withdraw(user: TestUser, coin: string, amount: number, address: string) {
  const res = await t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token: user.token,
    payload: { amount, coin, address, password: user.password },
  })
  expect(res.statusCode, res.body).toBe(200)
}

async function flowTotals(coin: string) {
  // (hourly buckets over the last 48 hours: everything this test moved)
  const flows = expectOk(
    await t.req({ method: 'GET', url: `/v1/admin/stats/flows?coin=${coin}&days=2`, token: admin.token }),
  )
  let withdrawals = 0n
  let count = 0
  for (const b of flows.buckets) {
    withdrawals += BigInt(b.withdrawals)
    count += b.withdrawalCount
  }
  return { withdrawals, count }
}

describe('GET /v1/admin/stats/flows: outflow', () => {
  it('counts what reached outside addresses, not payments, legs, gas or transfers between platform addresses', async () => {
    const outside = [freshAddress(), freshAddress()]
    const outsideToken = freshAddress()
    await withdraw(payer, 'avax', 1, outside[0]!)
    await withdraw(payer, 'avax', 0.5, outside[1]!)
    await withdraw(payer, 'usdc', 7, outsideToken)
    // to another user's deposit address: value moves between two custodial addresses
    await withdraw(payer, 'avax', 0.25, await walletAddress(t, receiver))
    // an in-app escrow payment from the wallet, then a release (payout leg and the platform's fee)
    const q = await initiate(t, payer, receiver, { amount: 20, coin: 'avax' })
    const paid = await post(t, payer, '/v1/escrow/pay', { escrowId: q.escrowId, password: payer.password })
    expect(paid.statusCode, paid.body).toBe(200)
    await settleAll(t)
    const released = await post(t, payer, '/v1/payment/release', { collection: q.collectionId, amount: 10 })
    expect(released.statusCode, released.body).toBe(200)
    await settleAll(t)

    // Every kind of movement happened and settled (so a figure that counted them would differ).
    const purposes = await t.database.db
      .selectFrom('outgoingTransfers')
      .select(['purpose', 'status', 'coin', 'toAddress'])
      .execute()
    expect(
      purposes.every((p) => p.status === 'completed'),
      JSON.stringify(purposes),
    ).toBe(true)
    const kinds = new Set(purposes.map((p) => p.purpose))
    for (const k of ['withdrawal', 'escrow.pay', 'escrow.leg', 'gas.topup']) expect(kinds, k).toContain(k)
    const sentOut = await t.database.db
      .selectFrom('transactions')
      .select(['method', 'amount'])
      .where('type', '=', 'withdrawal')
      .where('coin', '=', 'avax')
      .where('status', '=', 'completed')
      .where('isFee', '=', false)
      .execute()
    expect(sentOut.length, JSON.stringify(sentOut)).toBeGreaterThan(3)

    // Independently: what the outside addresses hold on the chain is what left the platform.
    const chain = t.app.services.chain
    let onChain = 0n
    for (const a of outside) onChain += await chain.balanceOf(a, 'avax')
    expect(onChain).toBe(AVAX + AVAX / 2n)
    const avax = await flowTotals('avax')
    expect(avax).toEqual({ withdrawals: onChain, count: 2 })
    // every in-app and platform movement above is worth more than nothing: the figure is not their sum
    const everything = sentOut.reduce((s, r) => s + BigInt(r.amount), 0n)
    expect(everything).toBeGreaterThan(onChain)

    const usdc = await flowTotals('usdc')
    expect(usdc).toEqual({ withdrawals: await chain.balanceOf(outsideToken, 'usdc'), count: 1 })
    expect(usdc.withdrawals).toBe(7n * USDC)
  })
})
