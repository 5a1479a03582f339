// The collection payment API, continued: partial releases racing on one escrow, the same escrow
// reached through #13–#15 and through the client SDK, failed parts sent again, escrow trees.
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'
import { refuseSends } from '../helpers/refuser.ts'
import { expectOk, type SdkContext } from '../sdk/helpers.ts'
import {
  AVAX,
  expectConsistent,
  expectError,
  initiate,
  post,
  sendFrom,
  settleAll,
  userBalance,
} from './helpers.ts'
import { paymentScene, sum, toUnits } from './payment-helpers.ts'

let ctx: SdkContext
let t: TestApp
let creator: TestUser
let talent: TestUser
const S = paymentScene()
const { outsider, fund, validate, release, newCollection, assign, paidCollection, legsOf } = S
beforeAll(() => {
  ;({ ctx, t, creator, talent } = S.scene)
})

describe('racing parts', () => {
  it('never pays more than held when partial releases race on one escrow', async () => {
    const { id, q } = await paidCollection('100')
    const before = await userBalance(t, talent.id, 'avax')
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => release(creator, { collection: id, amount: 30 })),
    )
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 200, 200, 422, 422])
    const last = await Promise.all([
      release(creator, { collection: id, amount: 10 }),
      release(creator, { collection: id, amount: 10 }),
    ])
    expect(last.map((a) => a.statusCode).sort()).toEqual([200, 409])
    await settleAll(t)
    const legs = await legsOf(q.escrowId)
    expect(legs.filter((l) => l.kind === 'payout')).toHaveLength(4)
    expect(sum(legs.filter((l) => l.kind === 'payout'))).toBe(4n * AVAX)
    expect(sum(legs.filter((l) => l.kind !== 'payout'))).toBe(AVAX / 5n)
    expect(await userBalance(t, talent.id, 'avax')).toBe(before + 4n * AVAX)
    const releases = await t.database.db
      .selectFrom('escrowReleases')
      .select(['cents', 'final'])
      .where('escrowId', '=', q.escrowId)
      .execute()
    expect(releases.map((r) => Number(r.cents)).sort()).toEqual([1000, 3000, 3000, 3000])
    expect(releases.filter((r) => r.final)).toHaveLength(1)
    await expectConsistent(t)
  })
})

describe('one escrow, two ways in', () => {
  it('releases a #13 escrow in parts by its collection, and #15 releases the rest', async () => {
    const q = await initiate(t, creator, talent, { amount: 50 })
    await sendFrom(t, outsider(), q.address, 'avax', BigInt(q.amountToPayBaseUnits))
    const viaCollection = await validate(talent, { collection: q.collectionId })
    expect(viaCollection.json().data).toMatchObject({ escrowId: q.escrowId, status: 'paid' })
    const again = await fund(creator, { coin: 'avax', collection: q.collectionId })
    expectError(again, 409, 'ESCROW_ALREADY_PAID')
    const before = await userBalance(t, talent.id, 'avax')
    const part = await release(creator, { collection: q.collectionId, amount: 12.5 })
    expect(part.json().data).toMatchObject({ payout: '0.5', remainingAmount: 37.5, final: false })
    const rest = await post(t, creator, '/v1/escrow/release', { escrowId: q.escrowId })
    expect(rest.statusCode, rest.body).toBe(200)
    await settleAll(t)
    expect(await userBalance(t, talent.id, 'avax')).toBe(before + 2n * AVAX)
    const legs = await legsOf(q.escrowId)
    expect(sum(legs.filter((l) => l.kind !== 'payout'))).toBe(BigInt(q.expectedFeeBaseUnits))
    expect((await post(t, creator, '/v1/escrow/validate', { escrowId: q.escrowId })).json().data.status).toBe(
      'released',
    )
    await expectConsistent(t)
  })

  it('works through the client SDK’s PaymentModule', async () => {
    const id = await newCollection(creator, { paymentFee: '25' })
    await assign(id, talent.id)
    const q = expectOk(await ctx.sdk.payment.create(creator.token, { coin: 'avax', collection: id }))
    expect(typeof q.collectionAmount).toBe('number')
    for (const k of ['collectionAmountCoin', 'expectedFee', 'amountToPay', 'usdFee', 'usdAmount', 'chainId'])
      expect(typeof q[k], k).toBe('string')
    expect(typeof q.feePercentage).toBe('number')
    expect(typeof q.rate).toBe('number')
    await sendFrom(t, outsider(), q.address, 'avax', toUnits(q.amountToPay, 18))
    // validate asks the watcher's job for a scan; no worker runs jobs here, so the test runs it.
    await t.app.services.settlement.watcher.scanNow()
    const v = expectOk(await ctx.sdk.payment.validate(creator.token, { collection: id, status: 'waiting' }))
    expect(v.status).toBe('paid')
    const r = expectOk(await ctx.sdk.payment.release(creator.token, { collection: id, amount: 5 }))
    expect(r).toMatchObject({ amount: 5, remainingAmount: 20, payout: '0.2' })
    expectOk(await ctx.sdk.payment.release(creator.token, { collection: id, amount: 20 }))
    await settleAll(t)
    expect(expectOk(await ctx.sdk.payment.validate(talent.token, { collection: id })).status).toBe('released')
    await expectConsistent(t)
  })
})

describe('parts and the rest of the escrow’s rules', () => {
  it('sends the transfers of a part that ran out of retries again with the next part', async () => {
    const { id, q } = await paidCollection('100')
    const before = await userBalance(t, talent.id, 'avax')
    expect((await release(creator, { collection: id, amount: 40 })).statusCode).toBe(200)
    const accept = refuseSends(t)
    try {
      for (let i = 0; i < 12; i++) {
        await t.drain()
        t.clock.advance(10 * 60_000)
      }
    } finally {
      accept()
    }
    expect((await legsOf(q.escrowId)).some((l) => l.status === 'failed')).toBe(true)
    expect(await userBalance(t, talent.id, 'avax')).toBe(before)
    const rest = await release(creator, { collection: id, amount: 60 })
    expect(rest.statusCode, rest.body).toBe(200)
    expect(rest.json().message).toMatch(/failed earlier are being sent again/)
    await settleAll(t)
    const legs = await legsOf(q.escrowId)
    expect(legs.every((l) => l.status === 'completed')).toBe(true)
    expect(sum(legs.filter((l) => l.kind === 'payout'))).toBe(4n * AVAX)
    expect(sum(legs.filter((l) => l.kind !== 'payout'))).toBe(AVAX / 5n)
    expect(await userBalance(t, talent.id, 'avax')).toBe(before + 4n * AVAX)
    expect((await validate(creator, { collection: id })).json().data.status).toBe('released')
    await expectConsistent(t)
  })

  it('funds no child escrow from a partly released parent', async () => {
    const parent = await initiate(t, creator, talent, { amount: 100 })
    await sendFrom(t, outsider(), parent.address, 'avax', BigInt(parent.amountToPayBaseUnits))
    expect((await validate(creator, { collection: parent.collectionId })).json().data.status).toBe('paid')
    expect((await release(creator, { collection: parent.collectionId, amount: 10 })).statusCode).toBe(200)
    const child = await post(t, creator, '/v1/escrow/initiate', {
      title: 'Child',
      description: 'A part of the job',
      amount: 20,
      coin: 'avax',
      receiverId: talent.id,
      parent: parent.collectionId,
    })
    expectError(child, 422, 'PARENT_ESCROW_PARTLY_RELEASED')
    expect(child.json().message).toMatch(/partly released/)
    expect((await release(creator, { collection: parent.collectionId, amount: 90 })).statusCode).toBe(200)
    await settleAll(t)
    await expectConsistent(t)
  })
})
