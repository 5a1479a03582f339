// Coins changed by an operator at run time on a real database and the dev chain: a deactivated
// coin refuses new wallets' deposits view, withdrawals and escrow payments from the next request
// and takes them again once activated; a static USD rate set and reset; a change written by another
// process reaches this one through the notification; every change audited.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initiate } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { freshAddress, fundUser, USDC } from '../withdrawals/helpers.ts'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId } from './helpers.ts'

let t: TestApp
let admin: TestUser
const run = runId()
const reason = 'Issuer paused the token contract'

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run)
})
afterAll(() => t?.close())

const act = (url: string, payload: Record<string, unknown> = { reason }, token = admin.token) =>
  t.req({ method: 'POST', url, token, payload })
const coinList = async () => (await t.req({ method: 'GET', url: '/v1/payment-public/coins' })).json().data
const withdraw = (user: TestUser, coin: string) =>
  t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token: user.token,
    payload: { amount: 1, coin, address: freshAddress(), password: user.password },
  })

describe('coins at run time', () => {
  it('answers 401, 403 to a normal user, and lists every configured coin to an admin', async () => {
    const user = await createUser(t)
    expectError(await t.req({ method: 'GET', url: '/v1/admin/coins' }), 401, 'UNAUTHENTICATED')
    expectError(await t.req({ method: 'GET', url: '/v1/admin/coins', token: user.token }), 403, 'FORBIDDEN')
    expectError(await act('/v1/admin/coins/usdc/deactivate', { reason }, user.token), 403, 'FORBIDDEN')
    const coins = expectOk(await t.req({ method: 'GET', url: '/v1/admin/coins', token: admin.token }))
    expect(coins.map((c: { reference: string }) => c.reference)).toEqual(
      expect.arrayContaining(['avax', 'usdc']),
    )
    expect(coins.find((c: { reference: string }) => c.reference === 'usdc')).toMatchObject({
      active: true,
      configuredActive: true,
      usdRate: '1',
      rateSet: false,
      halted: false,
    })
  })

  it('refuses withdrawals, wallet views and escrow payments in a deactivated coin on the next request', async () => {
    const [payer, receiver] = [await createUser(t), await createUser(t)]
    await fundUser(t, 7, payer, 'usdc', 50n * USDC)

    const off = expectOk(await act('/v1/admin/coins/USDC/deactivate'))
    expect(off).toMatchObject({
      reference: 'usdc',
      active: false,
      configuredActive: true,
      updatedBy: admin.id,
    })
    expectError(await act('/v1/admin/coins/usdc/deactivate'), 409, 'COIN_ALREADY_IN_STATE')
    expect((await coinList()).map((c: { reference: string }) => c.reference)).not.toContain('usdc')

    expectError(await withdraw(payer, 'usdc'), 400, 'VALIDATION_ERROR')
    expectError(
      await t.req({ method: 'GET', url: '/v1/wallet/coin/usdc', token: payer.token }),
      400,
      'VALIDATION_ERROR',
    )
    const quote = await t.req({
      method: 'POST',
      url: '/v1/escrow/initiate',
      token: payer.token,
      payload: {
        title: 'Logo',
        description: 'A logo',
        amount: 10,
        coin: 'usdc',
        dueDate: new Date(t.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10),
        isPrivate: false,
        isFundingRequest: false,
        receiverId: receiver.id,
      },
    })
    expectError(quote, 400, 'VALIDATION_ERROR')
    // Other coins go on.
    await initiate(t, payer, receiver)

    const on = expectOk(await act('/v1/admin/coins/usdc/activate'))
    expect(on.active).toBe(true)
    expect((await coinList()).map((c: { reference: string }) => c.reference)).toContain('usdc')
    const res = await withdraw(payer, 'usdc')
    expect(res.statusCode, res.body).toBe(200)
    const audits = (await auditRows(t)).filter((a) => a.targetType === 'coin' && a.targetId === 'usdc')
    expect(audits.map((a) => a.action)).toEqual(['coin.deactivate', 'coin.activate'])
    expect(audits[0]).toMatchObject({ actorId: admin.id, reason })
  })

  it('never deactivates the native coin, and answers 400 for an unknown coin', async () => {
    expectError(await act('/v1/admin/coins/avax/deactivate'), 409, 'NATIVE_COIN_REQUIRED')
    expectError(await act('/v1/admin/coins/doge/deactivate'), 400, 'VALIDATION_ERROR')
    expectError(await act('/v1/admin/coins/usdc/rate', { reason, usdRate: '-1' }), 400, 'VALIDATION_ERROR')
    expectError(await act('/v1/admin/coins/usdc/rate', { reason, usdRate: '0' }), 400, 'VALIDATION_ERROR')
  })

  it('sets a static USD rate that prices the coin at once, and goes back to the configured one', async () => {
    // read first: the rates answered before the change must not be the ones answered after it
    const before = await t.req({ method: 'GET', url: '/v1/transaction/exchange', token: admin.token })
    expect(before.json().data.avax).toBe(25)
    const set = expectOk(await act('/v1/admin/coins/avax/rate', { reason, usdRate: '31.5' }))
    expect(set).toMatchObject({ usdRate: '31.5', configuredUsdRate: '25', rateSet: true })
    const rates = await t.req({ method: 'GET', url: '/v1/transaction/exchange', token: admin.token })
    expect(rates.json().data.avax).toBe(31.5)
    const back = expectOk(await act('/v1/admin/coins/avax/rate', { reason, usdRate: null }))
    expect(back).toMatchObject({ usdRate: '25', rateSet: false })
    const again = await t.req({ method: 'GET', url: '/v1/transaction/exchange', token: admin.token })
    expect(again.json().data.avax).toBe(25)
    const [first, second] = await auditRows(t, 'coin.rate')
    expect(first!.details).toMatchObject({ usdRate: '31.5', before: null })
    expect(second!.details).toMatchObject({ usdRate: null, before: '31.5' })
  })

  it('picks up a change another API process wrote, through its notification', async () => {
    const db = t.database.db
    await db.transaction().execute(async (tx) => {
      await tx
        .insertInto('coinSettings')
        .values({
          reference: 'usdc',
          active: false,
          usdRate: null,
          updatedBy: admin.id,
          updatedAt: new Date(),
        })
        .onConflict((oc) => oc.column('reference').doUpdateSet({ active: false }))
        .execute()
      await sql`select pg_notify('coins_changed', 'usdc')`.execute(tx)
    })
    let refs: string[] = []
    for (let i = 0; i < 50; i++) {
      refs = (await coinList()).map((c: { reference: string }) => c.reference)
      if (!refs.includes('usdc')) break
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(refs).not.toContain('usdc')
    expectOk(await act('/v1/admin/coins/usdc/activate'))
  })
})
