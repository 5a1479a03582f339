// Escrow trees: a paid parent funds child escrows from its own balance (on chain, between the two
// escrow addresses); each child is released on its own and the parent only for what no child holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LEG_PURPOSE } from '../../src/modules/escrow/payouts.ts'
import { SimulatedCrash } from '../../src/modules/settlement/outgoing/types.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  AVAX,
  collection,
  expectConsistent,
  expectError,
  initiate,
  post,
  sendFrom,
  settleAll,
  tomorrow,
  userBalance,
} from './helpers.ts'

let t: TestApp
let payer: TestUser
let lead: TestUser
let helperA: TestUser
let helperB: TestUser
let stranger: TestUser
const outsider = () => t.app.services.chain.devnet!.accounts[2]!

beforeAll(async () => {
  t = await createTestApp()
  payer = await createUser(t)
  lead = await createUser(t)
  helperA = await createUser(t)
  helperB = await createUser(t)
  stranger = await createUser(t)
})
afterAll(() => t?.close())

const child = (receiver: TestUser, parent: string, amount: number, user = payer) =>
  post(t, user, '/v1/escrow/initiate', {
    title: `Part for ${amount}`,
    description: 'a part of the job',
    amount,
    coin: 'avax',
    dueDate: tomorrow(t),
    receiverId: receiver.id,
    parent,
  })

describe('child escrows funded by a paid parent', () => {
  it('funds two children, releases each on its own, and the parent for the rest', async () => {
    const parent = await initiate(t, payer, lead, { amount: 100 })
    // not paid yet
    expectError(await child(helperA, parent.collectionId, 40), 422, 'PARENT_ESCROW_NOT_FUNDED')
    await sendFrom(t, outsider(), parent.address, 'avax', BigInt(parent.amountToPayBaseUnits))
    expect(
      (await post(t, payer, '/v1/escrow/validate', { escrowId: parent.escrowId })).json().data.status,
    ).toBe('paid')

    expectError(await child(helperA, parent.collectionId, 40, stranger), 403, 'FORBIDDEN')
    expectError(await child(helperA, 'aaaaaaaaaaaaaaaaaaaaaaaa', 40), 404, 'NOT_FOUND')
    expectError(
      await post(t, payer, '/v1/escrow/initiate', {
        title: 'x',
        description: 'y',
        amount: 10,
        coin: 'usdc',
        receiverId: helperA.id,
        parent: parent.collectionId,
      }),
      400,
      'VALIDATION_ERROR',
    )

    const a = await child(helperA, parent.collectionId, 40)
    expect(a.statusCode, a.body).toBe(200)
    const b = await child(helperB, parent.collectionId, 20)
    expect(b.statusCode, b.body).toBe(200)
    const qa = a.json().data
    const qb = b.json().data
    expect(qa.amountToPay).toBe(1.68)
    expect(qb.amountToPay).toBe(0.84)
    // 4.2 received − 0.2 fee = 4.0 available; 2.52 given; 2.52 more is too much
    expectError(await child(helperA, parent.collectionId, 60), 422, 'INSUFFICIENT_BALANCE')
    // the parent cannot be released while a child is being funded
    expectError(
      await post(t, payer, '/v1/escrow/release', { escrowId: parent.escrowId }),
      422,
      'ESCROW_CHILD_FUNDING_PENDING',
    )

    await settleAll(t)
    for (const q of [qa, qb]) {
      const v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
      expect(v.json().data.status).toBe('paid')
    }
    const pc = await collection(t, payer, parent.collectionId)
    expect(pc.totalChildCollectionsCount).toBe(2)
    expect(pc.totalChildCollectionEscrowCount).toBe(2)
    expect(pc.collections.map((c: { _id: string }) => c._id).sort()).toEqual(
      [qa.collectionId, qb.collectionId].sort(),
    )
    const ca = await collection(t, payer, qa.collectionId)
    expect(ca).toMatchObject({ isParentFunded: true, status: 'ongoing' })

    // release child A
    expect((await post(t, payer, '/v1/escrow/release', { escrowId: qa.escrowId })).statusCode).toBe(200)
    await settleAll(t)
    expect(await userBalance(t, helperA.id, 'avax')).toBe((16n * AVAX) / 10n)

    // release the parent: its receiver gets the price minus what the children took
    expect((await post(t, payer, '/v1/escrow/release', { escrowId: parent.escrowId })).statusCode).toBe(200)
    await settleAll(t)
    expect(await userBalance(t, lead.id, 'avax')).toBe(4n * AVAX - (252n * AVAX) / 100n)
    expect(
      (await post(t, payer, '/v1/escrow/validate', { escrowId: parent.escrowId })).json().data.status,
    ).toBe('released')
    expect(await t.app.services.ledger.balance(t.database.db, 'escrow', parent.escrowId, 'avax')).toBe(0n)

    // child B is still held, then released on its own
    expect((await post(t, payer, '/v1/escrow/validate', { escrowId: qb.escrowId })).json().data.status).toBe(
      'paid',
    )
    expect((await post(t, payer, '/v1/escrow/release', { escrowId: qb.escrowId })).statusCode).toBe(200)
    await settleAll(t)
    expect(await userBalance(t, helperB.id, 'avax')).toBe((8n * AVAX) / 10n)
    await expectConsistent(t)
  })
})

async function legsOf(escrowId: string) {
  const rows = await t.database.db
    .selectFrom('escrowLegs')
    .select(['kind', 'amount', 'status'])
    .where('escrowId', '=', escrowId)
    .orderBy('seq')
    .execute()
  return rows.map((l) => ({ ...l, amount: BigInt(l.amount) }))
}

describe('releasing a parent escrow', () => {
  it('keeps its full fee when an overpaid parent gave its children more than its price', async () => {
    // price 4, fee 0.2, paid 12.2 (8 too much); the child takes 6.3 (> the price of 4)
    const parent = await initiate(t, payer, lead, { amount: 100 })
    await sendFrom(t, outsider(), parent.address, 'avax', BigInt(parent.amountToPayBaseUnits) + 8n * AVAX)
    await t.app.services.settlement.watcher.scanNow()
    const c = await child(helperA, parent.collectionId, 150)
    expect(c.statusCode, c.body).toBe(200)
    expect(c.json().data.amountToPay).toBe(6.3)
    await settleAll(t)

    const payerBefore = await userBalance(t, payer.id, 'avax')
    const leadBefore = await userBalance(t, lead.id, 'avax')
    const r = await post(t, payer, '/v1/escrow/release', { escrowId: parent.escrowId })
    expect(r.statusCode, r.body).toBe(200)
    await settleAll(t)
    const legs = (await legsOf(parent.escrowId)).filter((l) => l.kind !== 'fund')
    const fees = legs.filter((l) => l.kind === 'fee' || l.kind === 'platformFee')
    // the platform's fee is the parent's whole expectedFee; only what no child took goes back
    expect(fees.reduce((s, l) => s + l.amount, 0n)).toBe((2n * AVAX) / 10n)
    expect(legs.filter((l) => l.kind === 'refund').map((l) => l.amount)).toEqual([(57n * AVAX) / 10n])
    expect(legs.every((l) => l.status === 'completed')).toBe(true)
    expect(await userBalance(t, payer.id, 'avax')).toBe(payerBefore + (57n * AVAX) / 10n)
    expect(await userBalance(t, lead.id, 'avax')).toBe(leadBefore)
    expect(await t.app.services.ledger.balance(t.database.db, 'escrow', parent.escrowId, 'avax')).toBe(0n)
    await expectConsistent(t)
  })

  it('waits until the funding of a child is settled, even once the child is already credited', async () => {
    const parent = await initiate(t, payer, lead, { amount: 100 })
    await sendFrom(t, outsider(), parent.address, 'avax', BigInt(parent.amountToPayBaseUnits))
    await t.app.services.settlement.watcher.scanNow()
    // The worker sending the funding dies each time after the receipt: the child's funding is
    // mined (and credited by the watcher) but not yet settled in the ledger.
    const sender = t.app.services.outgoing
    t.crash.hook = async (at, id) => {
      if (at !== 'after-receipt') return
      const row = await sender.get(t.database.db, id)
      if (row?.purpose === LEG_PURPOSE) throw new SimulatedCrash(at)
    }
    let childQuote: { escrowId: string; amountToPay: number }
    try {
      const c = await child(helperA, parent.collectionId, 40)
      expect(c.statusCode, c.body).toBe(200)
      childQuote = c.json().data
      for (let i = 0; i < 30; i++) {
        await t.app.services.settlement.watcher.scanNow()
        await t.drain()
        const v = await post(t, payer, '/v1/escrow/validate', { escrowId: childQuote.escrowId })
        if (v.json().data.status === 'paid') break
        t.clock.advance(60_000)
      }
      const v = await post(t, payer, '/v1/escrow/validate', { escrowId: childQuote.escrowId })
      expect(v.json().data.status).toBe('paid')
      expect((await legsOf(parent.escrowId)).map((l) => [l.kind, l.status])).toEqual([['fund', 'processing']])
      expectError(
        await post(t, payer, '/v1/escrow/release', { escrowId: parent.escrowId }),
        422,
        'ESCROW_CHILD_FUNDING_PENDING',
      )
    } finally {
      t.crash.hook = undefined
    }
    await settleAll(t)
    const leadBefore = await userBalance(t, lead.id, 'avax')
    const r = await post(t, payer, '/v1/escrow/release', { escrowId: parent.escrowId })
    expect(r.statusCode, r.body).toBe(200)
    await settleAll(t)
    const legs = await legsOf(parent.escrowId)
    expect(legs.map((l) => l.kind)).toEqual(['fund', 'payout', 'fee', 'platformFee'])
    expect(legs.every((l) => l.status === 'completed')).toBe(true)
    expect(await userBalance(t, lead.id, 'avax')).toBe(leadBefore + 4n * AVAX - (168n * AVAX) / 100n)
    expect(
      (await post(t, payer, '/v1/escrow/validate', { escrowId: parent.escrowId })).json().data.status,
    ).toBe('released')
    expect(await t.app.services.ledger.balance(t.database.db, 'escrow', parent.escrowId, 'avax')).toBe(0n)
    await expectConsistent(t)
  })
})
