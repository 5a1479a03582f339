// Direct deposits on the dev chain: a public payment order for a collection (no account), paid
// from an outside wallet in full, in parts or with too much; the collection funded and released
// like any escrow; every refusal named; the same answer whether or not the payer's email belongs
// to an account.
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import { createUser, mailCount, type TestUser } from '../helpers/factories.ts'
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
let talent: TestUser
const S = depositScene()
const { order, validate, newCollection, pay, legsOf, escrowOf, onChain } = S
beforeAll(() => {
  ;({ t, creator, talent } = S.scene)
})

const post = (user: TestUser, url: string, payload: object) =>
  t.req({ method: 'POST', url, token: user.token, payload })

describe('POST /v1/payment-public/direct-deposit', () => {
  it('opens an order with its own address; the exact amount paid on chain funds the collection', async () => {
    const id = await newCollection()
    const refundTo = freshAddress()
    const res = await order({
      collection: id,
      amount: 100,
      coin: 'usdc',
      email: payerEmail(),
      address: refundTo,
    })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ status: 'success', message: 'Payment order created; payment awaited' })
    const q = body.data
    expect(q).toEqual({
      coin: 'usdc',
      address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      collectionAmount: 100,
      collectionAmountCoin: 100,
      expectedFee: 5,
      amountToPay: 105,
      usdFee: 5,
      usdAmount: 105,
      feePercentage: 5,
      rate: 1,
      chainId: '31337',
      contractAddress: t.app.services.chain.coin('usdc').contractAddress,
      paymentMethods: ['crypto'],
      collectionId: id,
      orderId: expect.stringMatching(/^[0-9a-f]{24}$/),
      expiresAt: expect.any(String),
      decimals: 6,
      amountToPayBaseUnits: '105000000',
    })
    // valid 30 minutes
    const left = Date.parse(q.expiresAt) - t.clock.now().getTime()
    expect(left).toBeGreaterThan(29 * 60_000)
    expect(left).toBeLessThanOrEqual(30 * 60_000)
    // the order is an escrow of the collection, controlled by its creator; the collection awaits it
    const e = await escrowOf(q.orderId)
    expect(e).toMatchObject({ status: 'waiting', payerId: creator.id, received: '0' })
    const pending = await validate({ collection: id, order: q.orderId })
    expect(pending.statusCode, pending.body).toBe(200)
    expect(pending.json().message).toBe('Awaiting payment')
    expect(pending.json().data).toMatchObject({
      _id: id,
      creator: creator.id,
      name: 'Logo design',
      type: 'job',
      escrowPaid: false,
      paymentStatus: 'pending',
      paymentCoin: 'usdc',
      paymentAddress: q.address,
      expectedAmount: '105',
      usdExpectedAmount: '105.00',
      order: {
        id: q.orderId,
        status: 'pending',
        received: 0,
        refund: { status: 'none', amount: 0, txHash: null },
      },
    })
    // nothing about the payer is answered
    expect(pending.body).not.toContain(refundTo.slice(2))
    expect(pending.body).not.toContain('@example.com')

    await pay(q.address, 105n * USDC)
    const paid = await validate({ collection: id })
    expect(paid.statusCode, paid.body).toBe(200)
    expect(paid.json().message).toBe('Payment has already been made')
    expect(paid.json().data).toMatchObject({
      escrowPaid: true,
      status: 'ongoing',
      paymentStatus: 'paid',
      order: { status: 'paid', received: 105, receivedBaseUnits: '105000000' },
    })
    const col = await t.req({ method: 'GET', url: `/v1/collection/${id}`, token: creator.token })
    expect(col.json().data).toMatchObject({ escrowPaid: true })
    // a funded collection takes no other order
    expectError(
      await order({ collection: id, amount: 100, coin: 'usdc', address: freshAddress() }),
      422,
      'COLLECTION_NOT_PAYABLE',
    )
    // the creator releases it as any escrow: the talent is paid, nothing goes back to the payer
    const talentBefore = await t.app.services.ledger.balance(t.database.db, 'user', talent.id, 'usdc')
    const rel = await post(creator, '/v1/payment/release', { collection: id, amount: 100 })
    expect(rel.statusCode, rel.body).toBe(200)
    await settleAll(t)
    expect(await t.app.services.ledger.balance(t.database.db, 'user', talent.id, 'usdc')).toBe(
      talentBefore + 100n * USDC,
    )
    expect((await legsOf(e.id)).map((l) => l.kind)).not.toContain('refund')
    expect(await onChain(refundTo)).toBe(0n)
    expect((await validate({ collection: id, order: q.orderId })).json().data.paymentStatus).toBe('released')
    await expectConsistent(t)
  })

  it('leaves a partial payment pending until the rest arrives', async () => {
    const id = await newCollection({ paymentFee: '20' })
    const q = (await order({ collection: id, amount: 20, coin: 'usdc', owner: freshAddress() })).json().data
    await pay(q.address, 10n * USDC)
    const part = await validate({ collection: id, order: q.orderId })
    expect(part.json().message).toBe('Partial payment received: 10 of 21')
    expect(part.json().data).toMatchObject({
      escrowPaid: false,
      paymentStatus: 'pending',
      order: { received: 10 },
    })
    // a second order while this one awaits its payment: 409
    expectError(
      await order({ collection: id, amount: 20, coin: 'usdc', email: payerEmail() }),
      409,
      'PAYMENT_ORDER_PENDING',
    )
    await pay(q.address, 11n * USDC, 'usdc', 3)
    const full = await validate({ collection: id, order: q.orderId })
    expect(full.json().data).toMatchObject({
      escrowPaid: true,
      paymentStatus: 'paid',
      order: { received: 21 },
    })
    await expectConsistent(t)
  })

  it('returns an overpayment to the payer’s address at release', async () => {
    const id = await newCollection({ paymentFee: '40' })
    const refundTo = freshAddress()
    const q = (await order({ collection: id, amount: 40, coin: 'usdc', address: refundTo })).json().data
    await pay(q.address, 45n * USDC) // 42 asked
    const v = await validate({ collection: id })
    expect(v.json().data).toMatchObject({ paymentStatus: 'paid', order: { received: 45 } })
    const creatorBefore = await t.app.services.ledger.balance(t.database.db, 'user', creator.id, 'usdc')
    expect((await post(creator, '/v1/payment/release', { collection: id, amount: 40 })).statusCode).toBe(200)
    await settleAll(t)
    const refunds = (await legsOf((await escrowOf(q.orderId)).id)).filter((l) => l.kind === 'refund')
    expect(refunds.map((l) => [l.toAddress, l.amount, l.status])).toEqual([
      [refundTo, String(3n * USDC), 'completed'],
    ])
    expect(await onChain(refundTo)).toBe(3n * USDC)
    // not to the creator's wallet
    expect(await t.app.services.ledger.balance(t.database.db, 'user', creator.id, 'usdc')).toBe(creatorBefore)
    const after = await validate({ collection: id, order: q.orderId })
    expect(after.json().data.order.refund).toMatchObject({
      status: 'sent',
      amount: 3,
      txHash: expect.stringMatching(/^0x/),
    })
    await expectConsistent(t)
  })

  it('opens one order of two sent at once, and nothing of the other', async () => {
    const id = await newCollection()
    const both = await Promise.all(
      [payerEmail(), payerEmail()].map((email) =>
        order({ collection: id, amount: 100, coin: 'usdc', email }),
      ),
    )
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 409])
    expect(both.find((r) => r.statusCode === 409)!.json().data.code).toBe('PAYMENT_ORDER_PENDING')
    const db = t.database.db
    const escrows = await db.selectFrom('escrows').select('id').where('collectionId', '=', id).execute()
    const orders = await db
      .selectFrom('directDeposits')
      .select('escrowId')
      .where('collectionId', '=', id)
      .execute()
    expect(orders.map((o) => o.escrowId)).toEqual(escrows.map((e) => e.id))
    expect(orders).toHaveLength(1)
    // no key of an escrow that does not exist (the refused order left nothing behind)
    const orphans = await db
      .selectFrom('walletKeys')
      .select('ownerId')
      .where('ownerKind', '=', 'escrow')
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('escrows').select('id').whereRef('escrows.id', '=', 'walletKeys.ownerId'))),
      )
      .execute()
    expect(orphans).toEqual([])
  })

  it('refuses what cannot be paid with named codes', async () => {
    const good = { amount: 100, coin: 'usdc', email: payerEmail() }
    const unknown = 'a'.repeat(24)
    expectError(await order({ ...good, collection: unknown }), 404, 'NOT_FOUND')
    // a private collection is hidden the same way
    const priv = await newCollection({ isPrivate: true })
    const hidden = await order({ ...good, collection: priv })
    expectError(hidden, 404, 'NOT_FOUND')
    expect(hidden.json().message).toBe((await order({ ...good, collection: unknown })).json().message)
    // no price
    expectError(
      await order({ ...good, collection: await newCollection({ paymentFee: '0' }) }),
      422,
      'COLLECTION_NOT_PAYABLE',
    )
    // another amount than the price
    const mismatch = await order({ ...good, amount: 99.5, collection: await newCollection() })
    expectError(mismatch, 422, 'PAYMENT_AMOUNT_MISMATCH')
    expect(mismatch.json().data).toMatchObject({ price: 100, errors: [{ path: '/amount' }] })
    // a cancelled job
    const cancelled = await newCollection({}, false)
    expect(
      (await post(creator, `/v1/collection/${cancelled}/cancel`, { reason: 'Called off' })).statusCode,
    ).toBe(200)
    expectError(await order({ ...good, collection: cancelled }), 422, 'COLLECTION_NOT_PAYABLE')
    // the creator's own payment awaits: 409, and the creator cannot pay a public order in-app
    const own = await newCollection()
    expect((await post(creator, '/v1/payment/', { coin: 'usdc', collection: own })).statusCode).toBe(200)
    expectError(await order({ ...good, collection: own }), 409, 'PAYMENT_ORDER_PENDING')
    const pub = await newCollection()
    const q = (await order({ ...good, collection: pub })).json().data
    const escrowId = (await escrowOf(q.orderId)).id
    expectError(
      await post(creator, '/v1/escrow/pay', { escrowId, password: creator.password }),
      409,
      'PAYMENT_ORDER_PENDING',
    )
    // nor take the public order over as their own payment (its refunds go to the outside payer)
    const takeOver = await post(creator, '/v1/payment/', { coin: 'usdc', collection: pub })
    expectError(takeOver, 409, 'PAYMENT_ORDER_PENDING')
    expect(takeOver.json().message).toContain(escrowId)
    // validate: an order of another collection, a collection without orders
    expectError(await validate({ collection: own, order: q.orderId }), 404, 'NOT_FOUND')
    expectError(await validate({ collection: await newCollection() }), 404, 'NOT_FOUND')
    expectError(await validate({ collection: unknown }), 404, 'NOT_FOUND')
  })

  it('refuses malformed requests with 400 VALIDATION_ERROR', async () => {
    const id = await newCollection()
    const good = { collection: id, amount: 100, coin: 'usdc', email: payerEmail() }
    const bad: [Record<string, unknown>, string][] = [
      [{ collection: id, amount: 100, coin: 'usdc' }, '/email'],
      [{ ...good, email: 'not-an-email' }, '/email'],
      [{ ...good, address: '0x1234' }, '/address'],
      [{ ...good, address: '0x52908400098527886E0F7030069857D2E4169Ee7'.replace('E0F', 'e0F') }, '/address'],
      [{ collection: id, amount: 100, coin: 'usdc', address: `0x${'0'.repeat(40)}` }, '/address'],
      [{ collection: id, amount: 100, coin: 'usdc', owner: 'nobody' }, '/owner'],
      [{ ...good, amount: 0 }, '/amount'],
      [{ ...good, amount: -5 }, '/amount'],
      [{ ...good, amount: 100.123 }, '/amount'],
      [{ ...good, coin: 'doge' }, '/coin'],
      [{ ...good, collection: 'nope' }, '/collection'],
      [{ ...good, extra: 1 }, ''],
      [{ ...good, systemDeposit: true }, '/systemDeposit'],
      [{ ...good, collectionType: 'other' }, '/collectionType'],
    ]
    for (const [body, path] of bad) {
      const res = await order(body)
      expectError(res, 400, 'VALIDATION_ERROR')
      if (path) expect(JSON.stringify(res.json().data.errors), JSON.stringify(body)).toContain(path)
    }
    // the SDK's own fields are accepted
    const sdk = await order({
      ...good,
      collectionType: 'payments',
      name: 'Pay',
      description: 'Logo',
      systemDeposit: false,
    })
    expect(sdk.statusCode, sdk.body).toBe(200)
    expectError(await validate({ collection: id, method: 'stripe' }), 400, 'VALIDATION_ERROR')
    expectError(await validate({ collection: id, order: 'x' }), 400, 'VALIDATION_ERROR')
    expectError(await validate({}), 400, 'VALIDATION_ERROR')
    const ok = await validate({
      collection: id,
      method: 'crypto',
      status: 'pending',
      owner: 'x',
      meta: { a: 1 },
    })
    expect(ok.statusCode, ok.body).toBe(200)
  })

  it('answers the same whether or not the email belongs to an account, and mails nobody', async () => {
    const member = await createUser(t)
    const stranger = payerEmail()
    const mails = [await mailCount(t, member.email), await mailCount(t, stranger)]
    const answers: Awaited<ReturnType<typeof order>>[] = []
    for (const email of [member.email, stranger, member.email.toUpperCase()]) {
      const res = await order({ collection: await newCollection(), amount: 100, coin: 'usdc', email })
      answers.push(res)
    }
    const shape = (res: (typeof answers)[number]) => {
      const b = res.json()
      return {
        statusCode: res.statusCode,
        headers: Object.keys(res.headers)
          .filter((h) => !['date', 'x-request-id', 'content-length'].includes(h))
          .sort(),
        body: { ...b, data: { ...b.data, address: '', collectionId: '', orderId: '', expiresAt: '' } },
      }
    }
    expect(shape(answers[1]!)).toEqual(shape(answers[0]!))
    expect(shape(answers[2]!)).toEqual(shape(answers[0]!))
    expect([await mailCount(t, member.email), await mailCount(t, stranger)]).toEqual(mails)
    // the order of the member is not linked to their account
    const e = await escrowOf(answers[0]!.json().data.orderId)
    expect(e.payerId).toBe(creator.id)
  })
})
