// The statements of the escrow money requests (BEGIN/COMMIT aside), counted around the second such
// request in one app, and what each wrote. POST /v1/escrow/pay: the escrow read with its checks,
// the credits not applied yet, the payer's password (user, attempt lock and count in one
// statement), then in one transaction the escrow locked, the wallet's hold (one statement: the
// account opened when missing, locked and held), the transaction record, the transfer (sender's
// key, row, job) and the escrow's link to it. A release (#15, or a part through POST
// /v1/payment/release): the escrow read with its checks, the credits, the collection's receiver,
// then in one transaction the escrow locked, the job's dispute state, the escrow's account locked,
// its legs, the release (update, row and answer in one statement), the legs' holds (one
// statement), per leg its transaction record and transfer, the legs in one insert and the
// collection's payout statuses in one update. (The coin halts and the wallet addresses are read
// from caches once warm; the payer's address only for a refund.) The bounds are what is left: a
// transfer (3) and a record (1) per leg are settlement's and the transaction records' to lower.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { AVAX, initiate, post, sendFrom, settleAll, walletAddress } from './helpers.ts'

let t: TestApp
let payer: TestUser
let receiver: TestUser

beforeAll(async () => {
  t = await createTestApp()
  payer = await createUser(t)
  receiver = await createUser(t)
  const from = t.app.services.chain.devnet!.accounts[5]!
  await sendFrom(t, from, await walletAddress(t, payer), 'avax', 100n * AVAX)
  await t.app.services.settlement.watcher.scanNow()
})
afterAll(() => t?.close())

const db = () => t.database.db
const ledger = () => t.app.services.ledger

async function counted(url: string, payload: object) {
  const before = t.database.queryCount()
  const res = await post(t, payer, url, payload)
  const queries = t.database.queryCount() - before
  expect(res.statusCode, res.body).toBe(200)
  return { queries, body: res.json() }
}

/** An escrow of `amount` USD paid in full from an outside account and validated `paid`. */
async function paidEscrow(amount: number) {
  const q = await initiate(t, payer, receiver, { amount })
  const from = t.app.services.chain.devnet!.accounts[6]!
  await sendFrom(t, from, q.address, 'avax', BigInt(q.amountToPayBaseUnits))
  const v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
  expect(v.json().data.status, v.body).toBe('paid')
  return q
}

const escrow = (id: string) =>
  db().selectFrom('escrows').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
const legsOf = (id: string) =>
  db().selectFrom('escrowLegs').selectAll().where('escrowId', '=', id).orderBy('seq').execute()
const collectionOf = (id: string) =>
  db().selectFrom('collections').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

/** Each leg is queued: a transfer funded by a pending hold of exactly its amount, and a record. */
async function expectQueued(legs: Awaited<ReturnType<typeof legsOf>>) {
  for (const leg of legs) {
    expect(leg).toMatchObject({ status: 'awaiting', attempt: 1, failures: 0 })
    const transfer = await db()
      .selectFrom('outgoingTransfers')
      .selectAll()
      .where('id', '=', leg.outgoingId!)
      .executeTakeFirstOrThrow()
    expect(transfer).toMatchObject({ purpose: 'escrow.leg', referenceId: leg.id, amount: leg.amount })
    expect(transfer.toAddress).toBe(leg.toAddress)
    const hold = (await ledger().getHold(db(), transfer.fundingHoldId!))!
    expect(hold).toMatchObject({ status: 'pending', amount: BigInt(leg.amount) })
    const record = await db()
      .selectFrom('transactions')
      .select(['status', 'amount'])
      .where('id', '=', leg.transactionId!)
      .executeTakeFirstOrThrow()
    expect(record).toEqual({ status: 'pending', amount: leg.amount })
  }
}

describe('statements per escrow money request', () => {
  it('POST /v1/escrow/pay takes at most 11 and holds what is missing on the wallet', async () => {
    const warm = await initiate(t, payer, receiver, { amount: 10 })
    await counted('/v1/escrow/pay', { escrowId: warm.escrowId, password: payer.password })
    const q = await initiate(t, payer, receiver, { amount: 10 })
    const heldBefore = (await ledger().accountsOf(db(), 'user', payer.id)).avax!.held
    const { queries, body } = await counted('/v1/escrow/pay', {
      escrowId: q.escrowId,
      password: payer.password,
    })
    expect(queries).toBeLessThanOrEqual(10)
    expect(body.message).toMatch(/^Payment sent from your wallet/)
    const e = await escrow(q.escrowId)
    expect(e.status).toBe('waiting')
    const due = BigInt(q.amountToPayBaseUnits)
    expect(await ledger().getHold(db(), e.payHoldId!)).toMatchObject({
      status: 'pending',
      amount: due,
      kind: 'escrow.pay',
    })
    const transfer = await db()
      .selectFrom('outgoingTransfers')
      .selectAll()
      .where('id', '=', e.payTransferId!)
      .executeTakeFirstOrThrow()
    expect(transfer).toMatchObject({ purpose: 'escrow.pay', fundingHoldId: e.payHoldId, amount: String(due) })
    expect((await ledger().accountsOf(db(), 'user', payer.id)).avax!.held).toBe(heldBefore + due)
    // A second payment while this one is under way is refused; an amount beyond the wallet too.
    const again = await post(t, payer, '/v1/escrow/pay', { escrowId: q.escrowId, password: payer.password })
    expect(again.json().data.code, again.body).toBe('ESCROW_PAYMENT_IN_PROGRESS')
    const big = await initiate(t, payer, receiver, { amount: 100_000 })
    const poor = await post(t, payer, '/v1/escrow/pay', { escrowId: big.escrowId, password: payer.password })
    expect(poor.statusCode, poor.body).toBe(422)
    expect(poor.json()).toMatchObject({
      message: 'Your wallet holds less than the amount to pay',
      data: { code: 'INSUFFICIENT_BALANCE' },
    })
    expect((await escrow(big.escrowId)).payHoldId).toBeNull()
  })

  it('POST /v1/escrow/release takes at most 24 and queues the three legs', async () => {
    const warm = await paidEscrow(20)
    await counted('/v1/escrow/release', { escrowId: warm.escrowId })
    const q = await paidEscrow(20)
    const { queries, body } = await counted('/v1/escrow/release', { escrowId: q.escrowId })
    expect(queries).toBeLessThanOrEqual(24)
    expect(body.message).toBe('Escrow release started: the payout and fees are being sent')
    const e = await escrow(q.escrowId)
    expect(e).toMatchObject({ status: 'releasing', releasedCents: '2000', receiverId: receiver.id })
    expect(BigInt(e.releasedPayout)).toBe(BigInt(q.coinEscrowAmountBaseUnits))
    expect(BigInt(e.releasedFee)).toBe(BigInt(q.expectedFeeBaseUnits))
    const legs = await legsOf(q.escrowId)
    expect(legs.map((l) => [l.kind, l.seq])).toEqual([
      ['payout', 1],
      ['fee', 2],
      ['platformFee', 3],
    ])
    expect(legs.reduce((s, l) => s + BigInt(l.amount), 0n)).toBe(BigInt(q.amountToPayBaseUnits))
    await expectQueued(legs)
    // The escrow's whole balance is held by its legs.
    expect((await ledger().accountsOf(db(), 'escrow', q.escrowId)).avax).toMatchObject({
      balance: BigInt(q.amountToPayBaseUnits),
      held: BigInt(q.amountToPayBaseUnits),
    })
    const c = await collectionOf(q.collectionId)
    expect(c).toMatchObject({
      payoutStatus: 'awaiting',
      feePayoutStatus: 'awaiting',
      platformFeePayoutStatus: 'awaiting',
      payoutTransactions: legs.map((l) => l.transactionId),
    })
    const releases = await db()
      .selectFrom('escrowReleases')
      .selectAll()
      .where('escrowId', '=', q.escrowId)
      .execute()
    expect(releases).toMatchObject([{ cents: '2000', final: true, receiverId: receiver.id }])
    const twice = await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })
    expect(twice.json().data.code, twice.body).toBe('ESCROW_RELEASE_IN_PROGRESS')
    // The receiver may not release it, anyone else does not see it.
    const other = await createUser(t)
    const r1 = await post(t, receiver, '/v1/escrow/release', { escrowId: warm.escrowId })
    expect(r1.statusCode).toBe(403)
    const r2 = await post(t, other, '/v1/escrow/release', { escrowId: warm.escrowId })
    expect(r2.statusCode).toBe(404)
  })

  it('POST /v1/payment/release takes at most 24 a part, and the parts add up to the escrow', async () => {
    const warm = await paidEscrow(40)
    await counted('/v1/payment/release', { collection: warm.collectionId, amount: 10 })
    const q = await paidEscrow(40)
    const first = await counted('/v1/payment/release', { collection: q.collectionId, amount: 10 })
    expect(first.queries).toBeLessThanOrEqual(24)
    expect(first.body.data).toEqual({
      escrowId: q.escrowId,
      amount: 10,
      releasedAmount: 10,
      remainingAmount: 30,
      payout: expect.any(String),
      fee: expect.any(String),
      final: false,
    })
    expect((await escrow(q.escrowId)).status).toBe('paid')
    const rest = await counted('/v1/payment/release', { collection: q.collectionId, amount: 30 })
    expect(rest.queries).toBeLessThanOrEqual(24)
    expect(rest.body.data).toMatchObject({ amount: 30, releasedAmount: 40, remainingAmount: 0, final: true })
    const legs = await legsOf(q.escrowId)
    expect(legs.map((l) => [l.kind, l.seq])).toEqual([
      ['payout', 1],
      ['fee', 2],
      ['platformFee', 3],
      ['payout', 4],
      ['fee', 5],
      ['platformFee', 6],
    ])
    await expectQueued(legs)
    const sum = (kinds: string[]) =>
      legs.filter((l) => kinds.includes(l.kind)).reduce((s, l) => s + BigInt(l.amount), 0n)
    expect(sum(['payout'])).toBe(BigInt(q.coinEscrowAmountBaseUnits))
    expect(sum(['fee', 'platformFee'])).toBe(BigInt(q.expectedFeeBaseUnits))
    expect((await collectionOf(q.collectionId)).payoutTransactions).toEqual(legs.map((l) => l.transactionId))
    await settleAll(t)
    expect((await escrow(q.escrowId)).status).toBe('released')
    expect((await legsOf(q.escrowId)).every((l) => l.status === 'completed')).toBe(true)
    expect((await ledger().accountsOf(db(), 'escrow', q.escrowId)).avax).toMatchObject({
      balance: 0n,
      held: 0n,
    })
    const again = await post(t, payer, '/v1/payment/release', { collection: q.collectionId, amount: 1 })
    expect(again.statusCode, again.body).toBe(409)
  })
})
