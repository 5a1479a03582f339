// A withdrawal reserves its amount and its fee with two ledger holds on the wallet: the amount's
// funds the transfer and is posted exactly once to the chain when it is mined, the fee's is posted
// exactly once to the address's treasury account by the withdrawal's report; both are voided
// exactly once when it fails, and a report or run repeated afterwards moves nothing. Two
// withdrawals racing for one balance cannot hold more than it has. The transfer's gas is a hold on
// the address's treasury account, posted for the gas used.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SimulatedCrash } from '../../src/modules/settlement/outgoing/types.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { deployRefuser } from '../helpers/refuser.ts'
import {
  AVAX,
  balanceOf,
  expectConsistent,
  freshAddress,
  fundUser,
  settleAll,
  USDC,
  walletAddress,
} from './helpers.ts'

let t: TestApp
const FEE = AVAX / 1000n
const USDC_FEE = USDC / 10n

beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

const db = () => t.database.db
const ledger = () => t.app.services.ledger

async function withdraw(user: TestUser, amount: number, coin = 'avax', address: string = freshAddress()) {
  const res = await t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token: user.token,
    payload: { password: user.password, amount, coin, address },
  })
  return res
}

function withdrawal(id: string) {
  return db().selectFrom('withdrawals').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

function outgoing(id: string) {
  return db().selectFrom('outgoingTransfers').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

async function wallet(userId: string, coin: string) {
  return (await ledger().accountsOf(db(), 'user', userId))[coin]!
}

async function ledgerCounts() {
  const [transfers, entries] = await Promise.all([
    db()
      .selectFrom('ledgerTransfers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
    db()
      .selectFrom('ledgerEntries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ])
  return { transfers: Number(transfers.n), entries: Number(entries.n) }
}

/** Runs the outcome's report again and the transfer's job again: neither may move anything. */
async function replayOutcome(transferId: string, kind: 'transfer.settled' | 'transfer.failed') {
  const before = await ledgerCounts()
  const report = await db()
    .selectFrom('jobs')
    .select('payload')
    .where('kind', '=', kind)
    .where(sql<string>`payload->>'transferId'`, '=', transferId)
    .executeTakeFirstOrThrow()
  await t.app.services.jobs.enqueue(db(), kind, report.payload as never)
  await t.app.services.outgoing.run(transferId)
  await t.drain()
  expect(await ledgerCounts()).toEqual(before)
}

describe('withdrawal holds', () => {
  it('holds amount and fee, shows the wallet less the holds, and posts each hold once on success', async () => {
    const user = await createUser(t)
    await fundUser(t, 0, user, 'avax', 2n * AVAX)
    const res = await withdraw(user, 0.5)
    expect(res.statusCode, res.body).toBe(200)
    const w = await withdrawal(res.json().data.withdrawalId)
    expect(w.holdId).toMatch(/^[0-9a-f]{24}$/)
    expect(w.feeHoldId).toMatch(/^[0-9a-f]{24}$/)
    const hold = await ledger().getHold(db(), w.holdId!)
    expect(hold).toMatchObject({ status: 'pending', amount: AVAX / 2n, kind: 'withdrawal' })
    const feeHold = await ledger().getHold(db(), w.feeHoldId!)
    expect(feeHold).toMatchObject({
      status: 'pending',
      amount: FEE,
      kind: 'withdrawal.fee',
      accountId: hold!.accountId,
      expiresAt: null,
    })
    // The transfer is funded by exactly the amount's hold.
    expect(await outgoing(w.outgoingId!)).toMatchObject({
      fundingHoldId: w.holdId,
      amount: String(AVAX / 2n),
    })

    // The value stays in the wallet account, held; what the user sees is what is available.
    expect(await wallet(user.id, 'avax')).toMatchObject({
      balance: 2n * AVAX,
      held: AVAX / 2n + FEE,
      available: 2n * AVAX - AVAX / 2n - FEE,
    })
    const view = await t.req({ method: 'GET', url: '/v1/wallet/coin/avax', token: user.token })
    expect(view.json().data.amount).toBe(1.499)
    const all = await t.req({ method: 'GET', url: '/v1/wallet', token: user.token })
    expect(all.json().data.wallets.find((x: { id: string }) => x.id === 'avax').amount).toBe('1.499000')

    await settleAll(t)
    const posted = (await ledger().getHold(db(), w.holdId!))!
    expect(posted).toMatchObject({ status: 'posted', postedAmount: AVAX / 2n })
    const legs = await ledger().entries(db(), posted.transferId!)
    expect(legs.map((l) => l.amount).sort()).toEqual([-(AVAX / 2n), AVAX / 2n].sort())
    // The fee's hold posted once, by the withdrawal's report, to the address's treasury account.
    const feePosted = (await ledger().getHold(db(), w.feeHoldId!))!
    expect(feePosted).toMatchObject({
      status: 'posted',
      postedAmount: FEE,
      resolutionKey: `withdrawal:${w.id}:fee`,
    })
    const from = (await walletAddress(t, user)).toLowerCase()
    const treasury = await ledger().ensureAccount(db(), 'treasury', from, 'avax')
    const feeLegs = await ledger().entries(db(), feePosted.transferId!)
    expect(feeLegs.map((l) => [l.accountId, l.amount])).toEqual(
      expect.arrayContaining([
        [hold!.accountId, -FEE],
        [treasury, FEE],
      ]),
    )
    expect(feeLegs).toHaveLength(2)
    expect(await wallet(user.id, 'avax')).toMatchObject({
      balance: 2n * AVAX - AVAX / 2n - FEE,
      held: 0n,
    })
    expect(await balanceOf(t, user.id, 'avax')).toBe(2n * AVAX - AVAX / 2n - FEE)
    // The withdrawal's record names the posting.
    const record = await db()
      .selectFrom('transactions')
      .select('transferId')
      .where('id', '=', w.transactionId!)
      .executeTakeFirstOrThrow()
    expect(record.transferId).toBe(posted.transferId)
    // The fee's record names the fee's posting.
    const feeRecord = await db()
      .selectFrom('transactions')
      .select('transferId')
      .where('ownerId', '=', user.id)
      .where('isFee', '=', true)
      .executeTakeFirstOrThrow()
    expect(feeRecord.transferId).toBe(feePosted.transferId)

    await replayOutcome(w.outgoingId!, 'transfer.settled')
    expect(await ledger().getHold(db(), w.holdId!)).toEqual(posted)
    expect(await ledger().getHold(db(), w.feeHoldId!)).toEqual(feePosted)
    await expectConsistent(t)
  })

  it('voids both holds once when the withdrawal fails, and a retried report moves nothing', async () => {
    const user = await createUser(t)
    await fundUser(t, 1, user, 'avax', AVAX)
    // a contract that refuses the payment: the chain's refusal counts toward the limit of failures
    const res = await withdraw(user, 0.25, 'avax', await deployRefuser(t))
    expect(res.statusCode, res.body).toBe(200)
    const w = await withdrawal(res.json().data.withdrawalId)
    expect(await balanceOf(t, user.id, 'avax')).toBe(AVAX - AVAX / 4n - FEE)

    const sender = t.app.services.outgoing
    const maxFailures = sender.options.maxFailures
    sender.options.maxFailures = 2
    try {
      for (let i = 0; i < 10 && (await outgoing(w.outgoingId!)).status !== 'failed'; i++) {
        await t.drain()
        t.clock.advance(60_000)
      }
    } finally {
      sender.options.maxFailures = maxFailures
    }
    await t.drain()
    expect((await withdrawal(w.id)).status).toBe('failed')
    const voided = await ledger().getHold(db(), w.holdId!)
    expect(voided).toMatchObject({ status: 'voided', postedAmount: 0n, transferId: null })
    const feeVoided = await ledger().getHold(db(), w.feeHoldId!)
    expect(feeVoided).toMatchObject({
      status: 'voided',
      postedAmount: 0n,
      transferId: null,
      resolutionKey: `withdrawal:${w.id}:fee-void`,
    })
    expect(await wallet(user.id, 'avax')).toMatchObject({ balance: AVAX, held: 0n, available: AVAX })

    await replayOutcome(w.outgoingId!, 'transfer.failed')
    expect(await ledger().getHold(db(), w.holdId!)).toEqual(voided)
    expect(await ledger().getHold(db(), w.feeHoldId!)).toEqual(feeVoided)
    expect(await balanceOf(t, user.id, 'avax')).toBe(AVAX)
    await expectConsistent(t)
  })

  it('lets only one of two concurrent withdrawals hold a balance that covers one', async () => {
    const user = await createUser(t)
    await fundUser(t, 2, user, 'avax', AVAX)
    const answers = await Promise.all([withdraw(user, 0.6), withdraw(user, 0.6)])
    const codes = answers.map((r) => r.statusCode).sort()
    expect(codes).toEqual([200, 422])
    const refused = answers.find((r) => r.statusCode === 422)!
    expect(refused.json()).toMatchObject({ status: 'error', data: { code: 'INSUFFICIENT_BALANCE' } })
    const account = await wallet(user.id, 'avax')
    expect(account.held).toBe((AVAX * 6n) / 10n + FEE)
    expect(account.available).toBe(AVAX - (AVAX * 6n) / 10n - FEE)
    const pending = await db()
      .selectFrom('ledgerHolds')
      .select('amount')
      .where('accountId', '=', account.id)
      .where('status', '=', 'pending')
      .execute()
    // the amount's and the fee's holds of the one withdrawal that was accepted
    expect(pending.map((h) => BigInt(h.amount)).sort()).toEqual([FEE, (AVAX * 6n) / 10n].sort())
    await settleAll(t)
    expect(await wallet(user.id, 'avax')).toMatchObject({ held: 0n, balance: AVAX - (AVAX * 6n) / 10n - FEE })
    await expectConsistent(t)
  })

  it('holds the gas of a token withdrawal at the address and posts the gas used', async () => {
    const user = await createUser(t)
    await fundUser(t, 3, user, 'usdc', 50n * USDC)
    const res = await withdraw(user, 5, 'usdc')
    expect(res.statusCode, res.body).toBe(200)
    const w = await withdrawal(res.json().data.withdrawalId)
    const from = (await walletAddress(t, user)).toLowerCase()

    // Stop the worker right after it signed: the gas is held on the address's treasury account.
    let seen: { holdId: string | null; reserved: bigint; held: bigint } | undefined
    t.crash.hook = async (at, id) => {
      if (at !== 'after-sign' || id !== w.outgoingId || seen) return
      const row = await outgoing(id)
      const treasury = (await ledger().accountsOf(db(), 'treasury', from)).avax!
      seen = { holdId: row.gasHoldId, reserved: BigInt(row.gasReserved), held: treasury.held }
      throw new SimulatedCrash(at)
    }
    try {
      for (let i = 0; i < 30 && !seen; i++) {
        await t.app.services.settlement.watcher.scanNow()
        await t.drain()
        if (!seen) t.clock.advance(5_000)
      }
    } finally {
      t.crash.hook = undefined
    }
    expect(seen?.holdId).toMatch(/^[0-9a-f]{24}$/)
    expect(seen!.reserved).toBeGreaterThan(0n)
    const gasHold = (await ledger().getHold(db(), seen!.holdId!))!
    expect(gasHold).toMatchObject({ status: 'pending', amount: seen!.reserved, kind: 'gas' })
    expect(seen!.held).toBe(seen!.reserved)

    await settleAll(t)
    const row = await outgoing(w.outgoingId!)
    expect(row.status).toBe('completed')
    const receipt = await t.app.services.chain.client.getTransactionReceipt({
      hash: row.txHash as `0x${string}`,
    })
    const used = receipt.gasUsed * receipt.effectiveGasPrice
    expect(await ledger().getHold(db(), seen!.holdId!)).toMatchObject({
      status: 'posted',
      postedAmount: used,
    })
    expect((await ledger().accountsOf(db(), 'treasury', from)).avax!.held).toBe(0n)
    expect(await ledger().getHold(db(), w.holdId!)).toMatchObject({
      status: 'posted',
      postedAmount: 5n * USDC,
    })
    expect(await ledger().getHold(db(), w.feeHoldId!)).toMatchObject({
      status: 'posted',
      postedAmount: USDC_FEE,
    })
    await expectConsistent(t)
  })
})
