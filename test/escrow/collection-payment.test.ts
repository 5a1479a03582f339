// The collection payment API (the client SDK's PaymentModule) on the dev chain: a collection made
// with #26 is funded (POST /v1/payment/), validated, paid from an outside wallet, and released in
// parts; every money step is checked against the chain and the ledger invariants.
import { beforeAll, describe, expect, it } from 'vitest'
import { planPart } from '../../src/modules/escrow/partial.ts'
import type { TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'
import {
  AVAX,
  collection,
  expectConsistent,
  expectError,
  post,
  sendFrom,
  settleAll,
  USDC,
  userBalance,
  walletAddress,
} from './helpers.ts'
import { paymentScene, sum, toUnits } from './payment-helpers.ts'

let t: TestApp
let creator: TestUser
let talent: TestUser
let stranger: TestUser
const S = paymentScene()
const { outsider, chain, fund, validate, release, newCollection, assign, legsOf, escrowBalance } = S
beforeAll(() => {
  ;({ t, creator, talent, stranger } = S.scene)
})

describe('planPart', () => {
  it('adds the parts up to the whole, to the unit, however the price is split', () => {
    const splits = [[1n, 1n, 1n], [333n, 333n, 334n], [1n, 998n, 1n], [9_999n, 1n], [10_000n]]
    for (const [payoutLeft0, feeLeft0] of [
      [4n * AVAX, AVAX / 5n],
      [10_000_001n, 500_001n],
      [7n, 0n],
    ]) {
      for (const parts of splits) {
        const total = parts.reduce((s, p) => s + p, 0n)
        let remaining = total
        let payoutLeft = payoutLeft0!
        let feeLeft = feeLeft0!
        let paid = 0n
        let fees = 0n
        parts.forEach((cents, i) => {
          const p = planPart({ cents, remainingCents: remaining, payoutLeft, feeLeft })
          expect(p.final).toBe(i === parts.length - 1)
          // proportional, rounded down (the last part takes the rest)
          if (!p.final) expect(p.payout).toBe((payoutLeft * cents) / remaining)
          paid += p.payout
          fees += p.fee
          payoutLeft -= p.payout
          feeLeft -= p.fee
          remaining -= cents
        })
        expect(paid).toBe(payoutLeft0)
        expect(fees).toBe(feeLeft0)
      }
    }
    expect(() => planPart({ cents: 0n, remainingCents: 5n, payoutLeft: 1n, feeLeft: 1n })).toThrow()
    expect(() => planPart({ cents: 6n, remainingCents: 5n, payoutLeft: 1n, feeLeft: 1n })).toThrow()
  })
})

describe('POST /v1/payment/ (fund a collection)', () => {
  it('answers the SDK’s IPaymentDataDto with exact amounts, and the same quote again', async () => {
    const id = await newCollection(creator)
    const res = await fund(creator, { coin: 'avax', collection: id }, { 'idempotency-key': 'fund-1' })
    expect(res.statusCode, res.body).toBe(200)
    const q = res.json().data
    expect(q).toEqual({
      coin: 'avax',
      address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      collectionAmount: 100,
      collectionAmountCoin: '4',
      expectedFee: '0.2',
      amountToPay: '4.2',
      usdFee: '5.00',
      usdAmount: '105.00',
      feePercentage: 5,
      rate: 25,
      chainId: '31337',
      escrowId: expect.stringMatching(/^[0-9a-f]{24}$/),
      contractAddress: '',
      expiresAt: expect.any(String),
    })
    // the replay of the same request, and a new request for the same coin: the same quote
    expect(
      (await fund(creator, { coin: 'avax', collection: id }, { 'idempotency-key': 'fund-1' })).json(),
    ).toEqual(res.json())
    const again = await fund(creator, { coin: 'avax', collection: id, usdValue: 100 })
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().data).toEqual(q)
    // the escrow is linked to the collection; the receiver is not known yet
    const row = await t.database.db
      .selectFrom('escrows')
      .select(['collectionId', 'payerId', 'receiverId', 'status'])
      .where('id', '=', q.escrowId)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ collectionId: id, payerId: creator.id, receiverId: null, status: 'waiting' })
    const linked = await t.database.db
      .selectFrom('collections')
      .select(['escrowId', 'escrowStatus'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(linked).toEqual({ escrowId: q.escrowId, escrowStatus: 'waiting' })

    // another coin or another price while unpaid: 409
    expectError(await fund(creator, { coin: 'usdc', collection: id }), 409, 'ESCROW_COIN_MISMATCH')
    expectError(
      await fund(creator, { coin: 'avax', collection: id, usdValue: 99 }),
      409,
      'ESCROW_PRICE_MISMATCH',
    )
    // after cancelling, another coin and price start a new escrow
    expect((await post(t, creator, '/v1/escrow/cancel', { escrowId: q.escrowId })).statusCode).toBe(200)
    const usdc = await fund(creator, { coin: 'usdc', collection: id, usdValue: 12.5 })
    expect(usdc.statusCode, usdc.body).toBe(200)
    expect(usdc.json().data).toMatchObject({
      coin: 'usdc',
      collectionAmount: 12.5,
      collectionAmountCoin: '12.5',
      expectedFee: '0.625',
      amountToPay: '13.125',
      usdFee: '0.63',
      usdAmount: '13.13',
      rate: 1,
      contractAddress: chain().coin('usdc').contractAddress,
    })
    expect(usdc.json().data.escrowId).not.toBe(q.escrowId)
  })

  it('answers one escrow to requests at the same moment', async () => {
    const id = await newCollection(creator)
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => fund(creator, { coin: 'avax', collection: id })),
    )
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200])
    expect(new Set(answers.map((a) => a.json().data.escrowId)).size).toBe(1)
    const rows = await t.database.db
      .selectFrom('escrows')
      .select('id')
      .where('collectionId', '=', id)
      .execute()
    expect(rows).toHaveLength(1)
  })

  it('refuses strangers, bad input and collections without a usable price', async () => {
    const id = await newCollection(creator)
    const hidden = await newCollection(creator, { isPrivate: true })
    expectError(await fund(stranger, { coin: 'avax', collection: id }), 403, 'FORBIDDEN')
    expectError(await fund(stranger, { coin: 'avax', collection: hidden }), 404, 'NOT_FOUND')
    expectError(await fund(undefined, { coin: 'avax', collection: id }), 401, 'UNAUTHENTICATED')
    expectError(
      await fund(creator, { coin: 'avax', collection: 'aaaaaaaaaaaaaaaaaaaaaaaa' }),
      404,
      'NOT_FOUND',
    )
    const bad: [Record<string, unknown>, number, string][] = [
      [{ collection: 'zz' }, 400, 'VALIDATION_ERROR'],
      [{ coin: 'nope' }, 400, 'VALIDATION_ERROR'],
      [{ coin: '' }, 400, 'VALIDATION_ERROR'],
      [{ usdValue: 0 }, 400, 'VALIDATION_ERROR'],
      [{ usdValue: -5 }, 400, 'VALIDATION_ERROR'],
      [{ usdValue: 0.5 }, 400, 'VALIDATION_ERROR'],
      [{ usdValue: 10.001 }, 400, 'VALIDATION_ERROR'],
      [{ usdValue: '10' }, 400, 'VALIDATION_ERROR'],
      [{ usdValue: 1_000_000_001 }, 400, 'VALIDATION_ERROR'],
      [{ extra: true }, 400, 'VALIDATION_ERROR'],
    ]
    for (const [patch, status, code] of bad)
      expectError(await fund(creator, { coin: 'avax', collection: id, ...patch }), status, code)
    expectError(await fund(creator, { collection: id }), 400, 'VALIDATION_ERROR')
    // a collection without a price needs usdValue
    const free = await newCollection(creator, { paymentFee: '0' })
    const noPrice = await fund(creator, { coin: 'avax', collection: free })
    expectError(noPrice, 422, 'COLLECTION_PRICE_INVALID')
    expect(noPrice.json().data.errors[0].path).toBe('/usdValue')
    expect((await fund(creator, { coin: 'avax', collection: free, usdValue: 20 })).statusCode).toBe(200)
    // nothing was created by the refusals
    const rows = await t.database.db
      .selectFrom('escrows')
      .select('id')
      .where('collectionId', '=', id)
      .execute()
    expect(rows).toHaveLength(0)
  })
})

describe('POST /v1/payment/validate and /v1/payment/release', () => {
  it('goes from waiting to paid, then releases in two parts with exact amounts', async () => {
    const id = await newCollection(creator)
    await assign(id, talent.id)
    const q = (await fund(creator, { coin: 'avax', collection: id })).json().data

    let v = await validate(creator, { collection: id, status: 'pending' })
    expect(v.statusCode, v.body).toBe(200)
    expect(v.json().data).toEqual({
      escrowId: q.escrowId,
      paymentAmount: 0,
      paymentAddress: q.address,
      receiverId: talent.id,
      status: 'waiting',
    })
    expect((await validate(talent, { collection: id })).statusCode).toBe(200)
    expectError(await validate(stranger, { collection: id }), 403, 'FORBIDDEN')
    expectError(await validate(undefined, { collection: id }), 401, 'UNAUTHENTICATED')
    expectError(await validate(creator, { collection: id, status: 'bogus' }), 400, 'VALIDATION_ERROR')
    expectError(await validate(creator, { collection: 'zz' }), 400, 'VALIDATION_ERROR')
    expectError(await release(creator, { collection: id, amount: 10 }), 422, 'BUSINESS_RULE')

    await sendFrom(t, outsider(), q.address, 'avax', toUnits(q.amountToPay, 18))
    v = await validate(talent, { collection: id })
    expect(v.json().data).toMatchObject({ status: 'paid', paymentAmount: 4.2 })
    expect(v.json().message).toMatch(/already been made/)
    expect(await collection(t, creator, id)).toMatchObject({ status: 'ongoing', escrowPaid: true })
    await expectConsistent(t)

    // permissions and bad amounts
    expectError(await release(talent, { collection: id, amount: 30 }), 403, 'FORBIDDEN')
    expectError(await release(stranger, { collection: id, amount: 30 }), 403, 'FORBIDDEN')
    expectError(await release(undefined, { collection: id, amount: 30 }), 401, 'UNAUTHENTICATED')
    for (const amount of [0, -1, 10.001, '30', null])
      expectError(await release(creator, { collection: id, amount }), 400, 'VALIDATION_ERROR')
    expectError(await release(creator, { collection: id }), 400, 'VALIDATION_ERROR')
    expectError(
      await release(creator, { collection: 'aaaaaaaaaaaaaaaaaaaaaaaa', amount: 1 }),
      404,
      'NOT_FOUND',
    )
    const tooMuch = await release(creator, { collection: id, amount: 100.01 })
    expectError(tooMuch, 422, 'RELEASE_AMOUNT_TOO_HIGH')
    expect(tooMuch.json().data.errors[0].path).toBe('/amount')

    const receiverAddress = await walletAddress(t, talent)
    // Platform fees go to the platform's fee address.
    const feeAddress = t.app.services.fees.feeAddress
    const [chainBefore, ledgerBefore, feesBefore] = await Promise.all([
      chain().balanceOf(receiverAddress, 'avax'),
      userBalance(t, talent.id, 'avax'),
      chain().balanceOf(feeAddress, 'avax'),
    ])

    // first part: 30 of 100 USD
    const first = await release(creator, { collection: id, amount: 30 }, { 'idempotency-key': 'part-1' })
    expect(first.statusCode, first.body).toBe(200)
    expect(first.json().data).toEqual({
      escrowId: q.escrowId,
      amount: 30,
      releasedAmount: 30,
      remainingAmount: 70,
      payout: '1.2',
      fee: '0.06',
      final: false,
    })
    expect(first.json().message).toMatch(/70\.00 USD remain/)
    const replay = await release(creator, { collection: id, amount: 30 }, { 'idempotency-key': 'part-1' })
    expect(replay.json()).toEqual(first.json())
    expectError(
      await release(creator, { collection: id, amount: 31 }, { 'idempotency-key': 'part-1' }),
      409,
      'IDEMPOTENCY_KEY_REUSED',
    )
    await settleAll(t)
    let legs = await legsOf(q.escrowId)
    expect(legs.map((l) => [l.kind, l.status])).toEqual([
      ['payout', 'completed'],
      ['fee', 'completed'],
      ['platformFee', 'completed'],
    ])
    expect(BigInt(legs[0]!.amount)).toBe((12n * AVAX) / 10n)
    expect(sum(legs.slice(1))).toBe((6n * AVAX) / 100n)
    expect(await chain().balanceOf(receiverAddress, 'avax')).toBe(chainBefore + (12n * AVAX) / 10n)
    expect(await userBalance(t, talent.id, 'avax')).toBe(ledgerBefore + (12n * AVAX) / 10n)
    expect(await escrowBalance(q.escrowId, 'avax')).toBe(toUnits('4.2', 18) - (126n * AVAX) / 100n)
    v = await validate(creator, { collection: id })
    expect(v.json().data).toMatchObject({ status: 'paid', receiverId: talent.id })
    expect(v.json().message).toMatch(/30\.00 of 100\.00 USD released/)
    await expectConsistent(t)

    // the rest: 70 USD completes the escrow as a full release does
    const second = await release(creator, { collection: id, amount: 70 })
    expect(second.statusCode, second.body).toBe(200)
    expect(second.json().data).toMatchObject({
      amount: 70,
      releasedAmount: 100,
      remainingAmount: 0,
      payout: '2.8',
      fee: '0.14',
      final: true,
    })
    expectError(await release(creator, { collection: id, amount: 1 }), 409, 'ESCROW_RELEASE_IN_PROGRESS')
    await settleAll(t)
    legs = await legsOf(q.escrowId)
    expect(legs.every((l) => l.status === 'completed')).toBe(true)
    // the parts add up to what a full release pays, to the unit
    expect(sum(legs.filter((l) => l.kind === 'payout'))).toBe(4n * AVAX)
    expect(sum(legs.filter((l) => l.kind === 'fee' || l.kind === 'platformFee'))).toBe(AVAX / 5n)
    expect(legs.some((l) => l.kind === 'refund')).toBe(false)
    const platformFees = sum(legs.filter((l) => l.kind === 'platformFee'))
    expect(await chain().balanceOf(receiverAddress, 'avax')).toBe(chainBefore + 4n * AVAX)
    expect(await userBalance(t, talent.id, 'avax')).toBe(ledgerBefore + 4n * AVAX)
    expect(await chain().balanceOf(feeAddress, 'avax')).toBe(feesBefore + platformFees)
    expect(await escrowBalance(q.escrowId, 'avax')).toBe(0n)
    expect((await validate(creator, { collection: id })).json().data.status).toBe('released')
    expect(await collection(t, creator, id)).toMatchObject({
      status: 'completed',
      payoutStatus: 'completed',
      feePayoutStatus: 'completed',
      platformFeePayoutStatus: 'completed',
    })
    const mails = await t.database.db
      .selectFrom('mails')
      .select('text')
      .where('toAddress', '=', talent.email.toLowerCase())
      .where('kind', '=', 'escrow_released')
      .execute()
    expect(mails.at(-1)?.text).toMatch(/ 4 AVAX/)
    expectError(await release(creator, { collection: id, amount: 1 }), 409, 'CONFLICT')
    expectError(await post(t, creator, '/v1/escrow/release', { escrowId: q.escrowId }), 409, 'CONFLICT')
    expectError(await fund(creator, { coin: 'avax', collection: id }), 409, 'ESCROW_ALREADY_PAID')
    await expectConsistent(t)
  })

  it('splits an uneven price to the unit and returns an overpayment with the last part', async () => {
    const id = await newCollection(creator, { paymentFee: '0' })
    const q = (await fund(creator, { coin: 'usdc', collection: id, usdValue: 10.01 })).json().data
    const price = toUnits(q.collectionAmountCoin, 6)
    const fee = toUnits(q.expectedFee, 6)
    await sendFrom(t, outsider(), q.address, 'usdc', toUnits(q.amountToPay, 6) + 3n * USDC)
    expect((await validate(creator, { collection: id })).json().data.status).toBe('paid')
    // no receiver assigned yet: paid, but not releasable
    const none = await release(creator, { collection: id, amount: 3.33 })
    expectError(none, 422, 'ESCROW_NO_RECEIVER')
    expect(none.json().message).toMatch(/receiver/)
    await assign(id, talent.id)
    const before = await userBalance(t, talent.id, 'usdc')
    const payerBefore = await userBalance(t, creator.id, 'usdc')
    for (const amount of [3.33, 3.33]) {
      const r = await release(creator, { collection: id, amount })
      expect(r.statusCode, r.body).toBe(200)
      expect(r.json().data.final).toBe(false)
      await settleAll(t)
      await expectConsistent(t)
    }
    const last = await release(creator, { collection: id, amount: 3.35 })
    expect(last.json().data).toMatchObject({ releasedAmount: 10.01, remainingAmount: 0, final: true })
    await settleAll(t)
    const legs = await legsOf(q.escrowId)
    const payouts = legs.filter((l) => l.kind === 'payout').map((l) => BigInt(l.amount))
    expect(payouts).toHaveLength(3)
    expect(payouts[0]).toBe((price * 333n) / 1001n)
    expect(payouts.reduce((s, p) => s + p, 0n)).toBe(price)
    expect(sum(legs.filter((l) => l.kind === 'fee' || l.kind === 'platformFee'))).toBe(fee)
    expect(legs.filter((l) => l.kind === 'refund').map((l) => BigInt(l.amount))).toEqual([3n * USDC])
    expect(await userBalance(t, talent.id, 'usdc')).toBe(before + price)
    expect(await userBalance(t, creator.id, 'usdc')).toBe(payerBefore + 3n * USDC)
    expect(await escrowBalance(q.escrowId, 'usdc')).toBe(0n)
    expect((await validate(talent, { collection: id })).json().data).toMatchObject({
      status: 'released',
      receiverId: talent.id,
    })
    await expectConsistent(t)
  })

  it('refuses collections without a payment, hidden ones and other people’s', async () => {
    const id = await newCollection(creator)
    const hidden = await newCollection(creator, { isPrivate: true })
    expectError(await validate(creator, { collection: id }), 422, 'COLLECTION_NOT_FUNDED')
    expectError(await release(creator, { collection: id, amount: 1 }), 422, 'COLLECTION_NOT_FUNDED')
    expectError(await validate(stranger, { collection: hidden }), 404, 'NOT_FOUND')
    expectError(await release(stranger, { collection: hidden, amount: 1 }), 404, 'NOT_FOUND')
    expectError(await validate(creator, { collection: 'aaaaaaaaaaaaaaaaaaaaaaaa' }), 404, 'NOT_FOUND')
  })
})
