// An in-app escrow payment reserves the amount with a ledger hold on the payer's wallet, linked
// to the escrow and funding the transfer: posted to the chain when the payment is mined (and the
// escrow credited by the watcher), voided when it fails for good, after which paying again holds
// anew.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { refuseSends } from '../helpers/refuser.ts'
import {
  expectConsistent,
  initiate,
  post,
  sendFrom,
  settleAll,
  USDC,
  userBalance,
  walletAddress,
} from './helpers.ts'

let t: TestApp
let receiver: TestUser

beforeAll(async () => {
  t = await createTestApp()
  receiver = await createUser(t)
})
afterAll(() => t?.close())

const db = () => t.database.db
const ledger = () => t.app.services.ledger

async function fundedPayer(outsider: number, amount: bigint) {
  const payer = await createUser(t)
  const from = t.app.services.chain.devnet!.accounts[outsider]!
  await t.app.services.chain.devnet!.fund(from.address, 'usdc', amount)
  await sendFrom(t, from, await walletAddress(t, payer), 'usdc', amount)
  await t.app.services.settlement.watcher.scanNow()
  return payer
}

function escrow(id: string) {
  return db().selectFrom('escrows').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

function transfer(id: string) {
  return db().selectFrom('outgoingTransfers').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

describe('in-app escrow payment holds', () => {
  it('holds the amount on the payer’s wallet, then posts the hold to the chain when mined', async () => {
    const payer = await fundedPayer(4, 50n * USDC)
    const q = await initiate(t, payer, receiver, { coin: 'usdc', amount: 40 })
    const due = BigInt(q.amountToPayBaseUnits)
    const r = await post(t, payer, '/v1/escrow/pay', { escrowId: q.escrowId, password: payer.password })
    expect(r.statusCode, r.body).toBe(200)

    const e = await escrow(q.escrowId)
    expect(e.payHoldId).toMatch(/^[0-9a-f]{24}$/)
    expect(await ledger().getHold(db(), e.payHoldId!)).toMatchObject({
      status: 'pending',
      amount: due,
      kind: 'escrow.pay',
    })
    expect((await transfer(e.payTransferId!)).fundingHoldId).toBe(e.payHoldId)
    const account = (await ledger().accountsOf(db(), 'user', payer.id)).usdc!
    expect(account).toMatchObject({ balance: 50n * USDC, held: due, available: 50n * USDC - due })
    // What the payer sees is what is available.
    expect(await userBalance(t, payer.id, 'usdc')).toBe(50n * USDC - due)
    const view = await t.req({ method: 'GET', url: '/v1/wallet/coin/usdc', token: payer.token })
    expect(view.json().data.amount).toBe(Number(50n * USDC - due) / 1e6)

    await settleAll(t)
    const posted = (await ledger().getHold(db(), e.payHoldId!))!
    expect(posted).toMatchObject({ status: 'posted', postedAmount: due })
    const legs = await ledger().entries(db(), posted.transferId!)
    expect(legs.map((l) => l.amount).sort()).toEqual([-due, due].sort())
    expect((await ledger().accountsOf(db(), 'user', payer.id)).usdc).toMatchObject({
      balance: 50n * USDC - due,
      held: 0n,
    })
    const v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
    expect(v.json().data.status).toBe('paid')
    await expectConsistent(t)
  })

  it('voids the hold when the payment fails for good; paying again holds anew', async () => {
    const payer = await fundedPayer(5, 50n * USDC)
    const q = await initiate(t, payer, receiver, { coin: 'usdc', amount: 10 })
    const due = BigInt(q.amountToPayBaseUnits)
    const sender = t.app.services.outgoing
    const maxFailures = sender.options.maxFailures
    sender.options.maxFailures = 2
    let first: Awaited<ReturnType<typeof escrow>>
    let accept: (() => void) | undefined
    try {
      const r = await post(t, payer, '/v1/escrow/pay', { escrowId: q.escrowId, password: payer.password })
      expect(r.statusCode, r.body).toBe(200)
      first = await escrow(q.escrowId)
      accept = refuseSends(t)
      for (let i = 0; i < 10 && (await transfer(first.payTransferId!)).status !== 'failed'; i++) {
        await t.drain()
        t.clock.advance(60_000)
      }
    } finally {
      sender.options.maxFailures = maxFailures
      accept?.()
    }
    await t.drain()
    expect((await transfer(first.payTransferId!)).status).toBe('failed')
    expect(await ledger().getHold(db(), first.payHoldId!)).toMatchObject({ status: 'voided' })
    expect((await ledger().accountsOf(db(), 'user', payer.id)).usdc).toMatchObject({
      balance: 50n * USDC,
      held: 0n,
    })

    const again = await post(t, payer, '/v1/escrow/pay', { escrowId: q.escrowId, password: payer.password })
    expect(again.statusCode, again.body).toBe(200)
    const second = await escrow(q.escrowId)
    expect(second.payHoldId).not.toBe(first.payHoldId)
    await settleAll(t)
    expect(await ledger().getHold(db(), second.payHoldId!)).toMatchObject({
      status: 'posted',
      postedAmount: due,
    })
    expect(await userBalance(t, payer.id, 'usdc')).toBe(50n * USDC - due)
    await expectConsistent(t)
  })
})
