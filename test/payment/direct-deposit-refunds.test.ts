// Direct deposits that end without funding the collection: an order expiring unpaid or underpaid,
// a payment arriving after the end, the collection cancelled before or after payment. What
// arrived goes back to the payer's address exactly once, on the dev chain; a payer who gave only
// an email is owed it through an operator.
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'
import {
  depositScene,
  expectConsistent,
  expectError,
  freshAddress,
  payerEmail,
  settleAll,
  USDC,
} from './direct-deposit-helpers.ts'

let t: TestApp
let creator: TestUser
const S = depositScene()
const { order, validate, newCollection, pay, legsOf, escrowOf, onChain } = S
beforeAll(() => {
  ;({ t, creator } = S.scene)
})

const THIRTY_MINUTES = 30 * 60_000
const refundLegs = async (orderId: string) =>
  (await legsOf((await escrowOf(orderId)).id)).filter((l) => l.kind === 'refund')
const escrowBalance = async (orderId: string) =>
  t.app.services.ledger.balance(t.database.db, 'escrow', (await escrowOf(orderId)).id, 'usdc')

describe('an order not paid in time', () => {
  it('expires: what arrived goes back to the payer’s address once, and so does a late payment', async () => {
    const id = await newCollection({ paymentFee: '30' })
    const refundTo = freshAddress()
    const q = (
      await order({ collection: id, amount: 30, coin: 'usdc', address: refundTo, email: payerEmail() })
    ).json().data
    await pay(q.address, 12n * USDC)
    expect((await validate({ collection: id, order: q.orderId })).json().data.order.received).toBe(12)

    t.clock.advance(THIRTY_MINUTES)
    await t.drain() // the expiry job
    expect((await escrowOf(q.orderId)).status).toBe('cancelled')
    await settleAll(t)
    expect(await onChain(refundTo)).toBe(12n * USDC)
    const v = await validate({ collection: id, order: q.orderId })
    expect(v.json().message).toBe('This payment order expired; what arrived is returned to the payer')
    expect(v.json().data).toMatchObject({
      escrowPaid: false,
      paymentStatus: 'expired',
      order: { status: 'expired', received: 12, refund: { status: 'sent', amount: 12 } },
    })
    // running the job again, or settling again, sends nothing more
    const job = { orderId: q.orderId }
    await t.app.services.jobs.enqueue(t.database.db, 'direct-deposit.expire', job)
    await settleAll(t)
    expect(await refundLegs(q.orderId)).toHaveLength(1)
    expect(await onChain(refundTo)).toBe(12n * USDC)
    expect(await escrowBalance(q.orderId)).toBe(0n)

    // a payment after the end goes back as well
    await pay(q.address, 4n * USDC)
    await validate({ collection: id, order: q.orderId })
    await settleAll(t)
    expect(await onChain(refundTo)).toBe(16n * USDC)
    expect(await refundLegs(q.orderId)).toHaveLength(2)

    // the collection takes a new order
    const again = await order({ collection: id, amount: 30, coin: 'usdc', address: freshAddress() })
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().data.address).not.toBe(q.address)
    await expectConsistent(t)
  })

  it('is expired by the next order or check when the job has not run yet', async () => {
    const id = await newCollection({ paymentFee: '10' })
    const refundTo = freshAddress()
    const q = (await order({ collection: id, amount: 10, coin: 'usdc', address: refundTo })).json().data
    await pay(q.address, 2n * USDC)
    await validate({ collection: id })
    t.clock.advance(THIRTY_MINUTES)
    // no job run: the new order expires the old one first
    const next = await order({ collection: id, amount: 10, coin: 'usdc', address: freshAddress() })
    expect(next.statusCode, next.body).toBe(200)
    expect((await escrowOf(q.orderId)).status).toBe('cancelled')
    expect((await validate({ collection: id, order: q.orderId })).json().data.paymentStatus).toBe('expired')
    await settleAll(t)
    expect(await onChain(refundTo)).toBe(2n * USDC)
    expect(await refundLegs(q.orderId)).toHaveLength(1)
  })

  it('of a payer known only by email: what arrived is held and recorded for an operator', async () => {
    const id = await newCollection({ paymentFee: '10' })
    const q = (await order({ collection: id, amount: 10, coin: 'usdc', email: payerEmail() })).json().data
    await pay(q.address, 3n * USDC)
    await validate({ collection: id })
    t.clock.advance(THIRTY_MINUTES)
    await t.drain()
    await settleAll(t)
    const v = await validate({ collection: id, order: q.orderId })
    expect(v.json().data).toMatchObject({
      paymentStatus: 'expired',
      order: { refund: { status: 'operator', amount: 3, txHash: null } },
    })
    expect(await refundLegs(q.orderId)).toHaveLength(0)
    expect(await escrowBalance(q.orderId)).toBe(3n * USDC)
    expect((await escrowOf(q.orderId)).operatorRefund).toBe(String(3n * USDC))
    // a late payment adds to what is owed, never twice
    await pay(q.address, 2n * USDC)
    await validate({ collection: id, order: q.orderId })
    await validate({ collection: id, order: q.orderId })
    expect((await escrowOf(q.orderId)).operatorRefund).toBe(String(5n * USDC))
    expect(await escrowBalance(q.orderId)).toBe(5n * USDC)
    await expectConsistent(t)
  })
})

describe('the collection cancelled', () => {
  it('its order cancelled by the creator: what arrived goes back to the payer, the collection is open again', async () => {
    const id = await newCollection({ paymentFee: '10' })
    const refundTo = freshAddress()
    const q = (await order({ collection: id, amount: 10, coin: 'usdc', address: refundTo })).json().data
    await pay(q.address, 1n * USDC)
    await validate({ collection: id })
    const escrowId = (await escrowOf(q.orderId)).id
    const res = await t.req({
      method: 'POST',
      url: '/v1/escrow/cancel',
      token: creator.token,
      payload: { escrowId },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().message).toBe('Escrow cancelled; the amount received is being returned to the payer')
    await settleAll(t)
    expect(await onChain(refundTo)).toBe(1n * USDC)
    expect((await validate({ collection: id, order: q.orderId })).json().data.paymentStatus).toBe('cancelled')
    const again = await order({ collection: id, amount: 10, coin: 'usdc', email: payerEmail() })
    expect(again.statusCode, again.body).toBe(200)
  })

  it('after payment: the whole payment goes back to the payer’s address, exactly once', async () => {
    const id = await newCollection({ paymentFee: '50' })
    const refundTo = freshAddress()
    const q = (await order({ collection: id, amount: 50, coin: 'usdc', address: refundTo })).json().data
    await pay(q.address, 52_500_000n) // 52.5 asked
    expect((await validate({ collection: id })).json().data.paymentStatus).toBe('paid')
    const cancel = () =>
      t.req({
        method: 'POST',
        url: `/v1/collection/${id}/cancel`,
        token: creator.token,
        payload: { reason: 'Called off' },
      })
    expect((await cancel()).statusCode).toBe(200)
    await settleAll(t)
    expect(await onChain(refundTo)).toBe(52_500_000n)
    const v = await validate({ collection: id, order: q.orderId })
    expect(v.json().data).toMatchObject({
      paymentStatus: 'refunded',
      order: { status: 'refunded', refund: { status: 'sent', amount: 52.5 } },
    })
    // cancelling again is refused and moves nothing; neither do more rounds of the jobs
    expect((await cancel()).statusCode).toBe(409)
    await settleAll(t)
    expect(await refundLegs(q.orderId)).toHaveLength(1)
    expect(await onChain(refundTo)).toBe(52_500_000n)
    expect(await escrowBalance(q.orderId)).toBe(0n)
    // the creator's wallet got nothing of it
    expect(await t.app.services.ledger.balance(t.database.db, 'user', creator.id, 'usdc')).toBe(0n)
    // and the creator's history shows no refund of theirs (the payer has no account here)
    expect((await refundLegs(q.orderId))[0]!.transactionId).toBeNull()
    const history = await t.req({ method: 'GET', url: '/v1/transaction', token: creator.token })
    expect(history.statusCode, history.body).toBe(200)
    expect(history.body).not.toContain('refund')
    await expectConsistent(t)
  })

  it('before payment: the partial payment goes back to the payer’s address, exactly once', async () => {
    const id = await newCollection({ paymentFee: '20' })
    const refundTo = freshAddress()
    const q = (await order({ collection: id, amount: 20, coin: 'usdc', owner: refundTo })).json().data
    await pay(q.address, 7n * USDC)
    await validate({ collection: id })
    const res = await t.req({
      method: 'POST',
      url: `/v1/collection/${id}/cancel`,
      token: creator.token,
      payload: { reason: 'Called off' },
    })
    expect(res.statusCode, res.body).toBe(200)
    await settleAll(t)
    expect(await onChain(refundTo)).toBe(7n * USDC)
    const v = await validate({ collection: id, order: q.orderId })
    expect(v.json().data).toMatchObject({
      paymentStatus: 'cancelled',
      order: { refund: { status: 'sent', amount: 7 } },
    })
    // the escrow is cancelled: cancelling it again is refused, the expiry job does nothing
    const escrowId = (await escrowOf(q.orderId)).id
    const again = await t.req({
      method: 'POST',
      url: '/v1/escrow/cancel',
      token: creator.token,
      payload: { escrowId },
    })
    expect(again.statusCode).toBe(409)
    t.clock.advance(THIRTY_MINUTES)
    await settleAll(t)
    expect(await refundLegs(q.orderId)).toHaveLength(1)
    expect(await onChain(refundTo)).toBe(7n * USDC)
    expectError(
      await order({ collection: id, amount: 20, coin: 'usdc', owner: refundTo }),
      422,
      'COLLECTION_NOT_PAYABLE',
    )
    await expectConsistent(t)
  })
})
