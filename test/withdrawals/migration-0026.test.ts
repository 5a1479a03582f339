// Migration 0026 on a database written the old way: a withdrawal whose amount + fee, and whose
// transfer's gas, were parked in `withdrawal_hold` accounts, and an in-app escrow payment parked
// likewise (written here with SQL, as the code before holds left them). The conversion moves them
// back and holds them instead (the withdrawal's amount + fee in one hold, its fee a posting of its
// success, as the code between 0026 and 0058 did), the ledger stays sound, and 0058 then splits
// that hold into the amount's and the fee's; a retry of the request finds the same withdrawal, and
// the transfer then settles posting exactly those holds, with the ledger equal to the chain.
import { type Kysely, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { convertParkedHolds } from '../../src/db/migrations/0026-reservation-holds.ts'
import { splitOpenWithdrawals } from '../../src/db/migrations/0058-withdrawal-fee-holds.ts'
import { SimulatedCrash } from '../../src/modules/settlement/outgoing/types.ts'
import { ledgerInvariants } from '../../src/modules/settlement/reconcile/checks.ts'
import { newId } from '../../src/platform/crypto/ids.ts'
import { initiate, post, settleAll as settleEscrow } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { sendFrom } from '../helpers/money.ts'
import { AVAX, expectConsistent, freshAddress, fundUser, settleAll, USDC, walletAddress } from './helpers.ts'

let t: TestApp
const FEE = AVAX / 1000n

beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

const db = () => t.database.db as unknown as Kysely<any>
const ledger = () => t.app.services.ledger

/** An account of the retired kind, as the old code opened them. */
async function parkingAccount(ownerId: string, coin: string) {
  const id = newId()
  await sql`
    insert into ledger_accounts (id, kind, owner_id, coin, balance, created_at, updated_at)
    values (${id}, 'withdrawal_hold', ${ownerId}, ${coin}, 0, now(), now())`.execute(db())
  return id
}

/** Undoes a pending hold and moves its amount to `to` with an ordinary transfer (the old shape). */
async function parkInsteadOfHold(holdId: string, to: string, key: string) {
  const {
    rows: [h],
  } = await sql<{ accountId: string; coin: string; amount: string }>`
    select account_id, coin, amount::text as amount from ledger_holds where id = ${holdId}`.execute(db())
  const transferId = newId()
  await sql`delete from ledger_holds where id = ${holdId}`.execute(db())
  await sql`
    insert into ledger_transfers (id, idempotency_key, coin, kind, created_at)
    values (${transferId}, ${key}, ${h!.coin}, 'withdrawal.hold', now())`.execute(db())
  await sql`
    insert into ledger_entries (transfer_id, account_id, coin, amount, created_at)
    values (${transferId}, ${h!.accountId}, ${h!.coin}, ${`-${h!.amount}`}::numeric, now()),
           (${transferId}, ${to}, ${h!.coin}, ${h!.amount}::numeric, now())`.execute(db())
  await sql`
    update ledger_accounts set balance = balance - ${h!.amount}::numeric, held = held - ${h!.amount}::numeric
    where id = ${h!.accountId}`.execute(db())
  await sql`update ledger_accounts set balance = balance + ${h!.amount}::numeric where id = ${to}`.execute(
    db(),
  )
  return { transferId, amount: BigInt(h!.amount) }
}

/**
 * Gives a withdrawal the shape the code before 0058 gave it: one hold of amount + fee funding the
 * transfer (the fee's hold folded into it, the account's held total unchanged) and the fee a
 * posting of the transfer's success.
 */
async function foldFeeHold(withdrawalId: string, treasuryOwner: string) {
  const {
    rows: [w],
  } = await sql<{ holdId: string; feeHoldId: string; fee: string; outgoingId: string }>`
    select hold_id, fee_hold_id, fee::text as fee, outgoing_id from withdrawals where id = ${withdrawalId}`.execute(
    db(),
  )
  // (as the database was before 0059, whose check refuses a fee without its hold from then on)
  await sql`alter table withdrawals drop constraint if exists withdrawals_fee_held`.execute(db())
  await sql`update withdrawals set fee_hold_id = null where id = ${withdrawalId}`.execute(db())
  await sql`delete from ledger_holds where id = ${w!.feeHoldId}`.execute(db())
  await sql`update ledger_holds set amount = amount + ${w!.fee}::numeric where id = ${w!.holdId}`.execute(
    db(),
  )
  await sql`
    insert into outgoing_postings
      (transfer_id, outcome, seq, idempotency_key, account_kind, account_owner_id, amount, kind)
    values (${w!.outgoingId}, 'completed', 0, ${`withdrawal:${withdrawalId}:fee`}, 'treasury', ${treasuryOwner},
            ${w!.fee}::numeric, 'withdrawal.fee')`.execute(db())
}

/** Runs the sender until the transfer has its gas reserved, and stops it there (before signing). */
async function stopBeforeSigning(transferId: string) {
  let stopped = false
  t.crash.hook = (at, id) => {
    if (at !== 'before-sign' || id !== transferId) return
    stopped = true
    throw new SimulatedCrash(at)
  }
  try {
    for (let i = 0; i < 30 && !stopped; i++) {
      await t.app.services.settlement.watcher.scanNow()
      await t.drain()
      if (!stopped) t.clock.advance(5_000)
    }
  } finally {
    t.crash.hook = undefined
  }
  expect(stopped).toBe(true)
}

describe('migration 0026: parked reservations become holds', () => {
  it('converts a withdrawal and its gas parked the old way, and the transfer then settles on them', async () => {
    const user = await createUser(t)
    await fundUser(t, 0, user, 'avax', 2n * AVAX)
    const address = (await walletAddress(t, user)).toLowerCase()
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: user.token,
      payload: { password: user.password, amount: 0.5, coin: 'avax', address: freshAddress() },
    })
    expect(res.statusCode, res.body).toBe(200)
    const withdrawalId: string = res.json().data.withdrawalId

    // The worker stops before signing, its gas reserved.
    const w0 = await db()
      .selectFrom('withdrawals')
      .selectAll()
      .where('id', '=', withdrawalId)
      .executeTakeFirstOrThrow()
    await stopBeforeSigning(w0.outgoingId!)
    const queued = await db()
      .selectFrom('outgoingTransfers')
      .selectAll()
      .where('id', '=', w0.outgoingId)
      .executeTakeFirstOrThrow()
    expect(queued.status).toBe('queued')
    const gasReserved = BigInt(queued.gasReserved)
    expect(gasReserved).toBeGreaterThan(0n)

    // ---- the old shape, written with SQL ----
    await foldFeeHold(withdrawalId, address)
    const userParking = await parkingAccount(user.id, 'avax')
    const gasParking = await parkingAccount(`gas:${address}`, 'avax')
    await sql`
      update outgoing_transfers set funding_hold_id = null, gas_hold_id = null, funding_account_id = ${userParking}
      where id = ${w0.outgoingId}`.execute(db())
    await sql`update withdrawals set hold_id = null where id = ${withdrawalId}`.execute(db())
    const value = await parkInsteadOfHold(w0.holdId!, userParking, `withdrawal:${withdrawalId}:hold`)
    await parkInsteadOfHold(queued.gasHoldId!, gasParking, `outgoing:${queued.id}:gas-reserve:0`)
    await sql`update transactions set transfer_id = ${value.transferId} where id = ${w0.transactionId}`.execute(
      db(),
    )
    await sql`
      insert into outgoing_postings
        (transfer_id, outcome, seq, idempotency_key, account_kind, account_owner_id, amount, kind)
      values (${queued.id}, 'failed', 0, ${`withdrawal:${withdrawalId}:release`}, 'user', ${user.id},
              ${value.amount.toString()}::numeric, 'withdrawal.release')`.execute(db())
    expect(value.amount).toBe(AVAX / 2n + FEE)
    expect(await ledger().balance(db(), 'withdrawal_hold', user.id, 'avax')).toBe(AVAX / 2n + FEE)
    expect(await ledger().balance(db(), 'withdrawal_hold', `gas:${address}`, 'avax')).toBe(gasReserved)
    // The old shape was sound: what the user saw is the same number the holds will show.
    expect(await ledger().balance(db(), 'user', user.id, 'avax')).toBe(2n * AVAX - AVAX / 2n - FEE)
    expect(await ledgerInvariants(db())).toEqual([])
    await expectConsistent(t)

    // ---- the migration's conversion ----
    expect(await convertParkedHolds(db())).toEqual({ value: 1, gas: 1 })
    expect(await convertParkedHolds(db())).toEqual({ value: 0, gas: 0 })
    expect(await ledgerInvariants(db())).toEqual([])

    const w = await db()
      .selectFrom('withdrawals')
      .selectAll()
      .where('id', '=', withdrawalId)
      .executeTakeFirstOrThrow()
    const row = await db()
      .selectFrom('outgoingTransfers')
      .selectAll()
      .where('id', '=', queued.id)
      .executeTakeFirstOrThrow()
    expect(w.holdId).toBe(row.fundingHoldId)
    expect(await ledger().getHold(db(), w.holdId!)).toMatchObject({
      status: 'pending',
      amount: AVAX / 2n + FEE,
      kind: 'withdrawal',
    })
    expect(await ledger().getHold(db(), row.gasHoldId!)).toMatchObject({
      status: 'pending',
      amount: gasReserved,
    })
    // The parked value is back where it belongs, held; the balances users see did not change.
    expect(await ledger().balance(db(), 'withdrawal_hold', user.id, 'avax')).toBe(0n)
    expect(await ledger().balance(db(), 'withdrawal_hold', `gas:${address}`, 'avax')).toBe(0n)
    expect((await ledger().accountsOf(db(), 'user', user.id)).avax).toMatchObject({
      balance: 2n * AVAX,
      held: AVAX / 2n + FEE,
      available: 2n * AVAX - AVAX / 2n - FEE,
    })
    expect((await ledger().accountsOf(db(), 'treasury', address)).avax!.held).toBe(gasReserved)
    const failurePostings = await db()
      .selectFrom('outgoingPostings')
      .select('idempotencyKey')
      .where('transferId', '=', queued.id)
      .where('outcome', '=', 'failed')
      .execute()
    expect(failurePostings).toEqual([])
    await expectConsistent(t)

    // The converted hold keeps the request's key and input: the same request run again answers it.
    const again = await db()
      .transaction()
      .execute((tx) =>
        ledger().hold(tx, {
          key: `withdrawal:${withdrawalId}:hold`,
          coin: 'avax',
          account: row.fundingAccountId!,
          amount: AVAX / 2n + FEE,
          kind: 'withdrawal',
        }),
      )
    expect(again).toEqual({ id: w.holdId, replayed: true })

    // ---- 0058: the fee gets a hold of its own, nothing moves ----
    expect(await splitOpenWithdrawals(db())).toBe(1)
    expect(await splitOpenWithdrawals(db())).toBe(0)
    expect(await ledgerInvariants(db())).toEqual([])
    const split = await db()
      .selectFrom('withdrawals')
      .selectAll()
      .where('id', '=', withdrawalId)
      .executeTakeFirstOrThrow()
    expect(split.holdId).toBe(w.holdId)
    expect(await ledger().getHold(db(), w.holdId!)).toMatchObject({ status: 'pending', amount: AVAX / 2n })
    expect(await ledger().getHold(db(), split.feeHoldId!)).toMatchObject({
      status: 'pending',
      amount: FEE,
      kind: 'withdrawal.fee',
    })
    expect((await ledger().accountsOf(db(), 'user', user.id)).avax).toMatchObject({
      balance: 2n * AVAX,
      held: AVAX / 2n + FEE,
    })
    expect(
      await db().selectFrom('outgoingPostings').selectAll().where('transferId', '=', queued.id).execute(),
    ).toEqual([])
    await expectConsistent(t)
    const retried = await db()
      .transaction()
      .execute((tx) =>
        ledger().hold(tx, {
          key: `withdrawal:${withdrawalId}:hold`,
          coin: 'avax',
          account: row.fundingAccountId!,
          amount: AVAX / 2n,
          kind: 'withdrawal',
        }),
      )
    expect(retried).toEqual({ id: w.holdId, replayed: true })

    // The transfer carries on and settles on the converted holds.
    await settleAll(t)
    const done = await db()
      .selectFrom('withdrawals')
      .selectAll()
      .where('id', '=', withdrawalId)
      .executeTakeFirstOrThrow()
    expect(done.status).toBe('completed')
    expect(await ledger().getHold(db(), w.holdId!)).toMatchObject({
      status: 'posted',
      postedAmount: AVAX / 2n,
    })
    expect(await ledger().getHold(db(), split.feeHoldId!)).toMatchObject({
      status: 'posted',
      postedAmount: FEE,
    })
    expect((await ledger().getHold(db(), row.gasHoldId!))?.status).toBe('posted')
    expect(await ledger().balance(db(), 'user', user.id, 'avax')).toBe(2n * AVAX - AVAX / 2n - FEE)
    expect((await ledger().accountsOf(db(), 'treasury', address)).avax!.held).toBe(0n)
    await expectConsistent(t)
  })

  it('converts an in-app escrow payment parked the old way; the payment then posts its hold', async () => {
    const payer = await createUser(t)
    const receiver = await createUser(t)
    const outsider = t.app.services.chain.devnet!.accounts[1]!
    await t.app.services.chain.devnet!.fund(outsider.address, 'usdc', 50n * USDC)
    await sendFrom(t, outsider, await walletAddress(t, payer), 'usdc', 50n * USDC)
    await t.app.services.settlement.watcher.scanNow()
    const q = await initiate(t, payer, receiver, { coin: 'usdc', amount: 20 })
    const due = BigInt(q.amountToPayBaseUnits)
    const paid = await post(t, payer, '/v1/escrow/pay', { escrowId: q.escrowId, password: payer.password })
    expect(paid.statusCode, paid.body).toBe(200)
    const e0 = await db()
      .selectFrom('escrows')
      .selectAll()
      .where('id', '=', q.escrowId)
      .executeTakeFirstOrThrow()
    await stopBeforeSigning(e0.payTransferId!)
    const queued = await db()
      .selectFrom('outgoingTransfers')
      .selectAll()
      .where('id', '=', e0.payTransferId)
      .executeTakeFirstOrThrow()

    // ---- the old shape: the amount parked in the payer's withdrawal_hold account ----
    const parking = await parkingAccount(payer.id, 'usdc')
    await sql`
      update outgoing_transfers set funding_hold_id = null, funding_account_id = ${parking}
      where id = ${queued.id}`.execute(db())
    await sql`update escrows set pay_hold_id = null where id = ${q.escrowId}`.execute(db())
    const holdKey = String((queued.meta as { holdKey?: string }).holdKey)
    await parkInsteadOfHold(e0.payHoldId!, parking, `escrow-pay:${holdKey}:hold`)
    await sql`
      insert into outgoing_postings
        (transfer_id, outcome, seq, idempotency_key, account_kind, account_owner_id, amount, kind)
      values (${queued.id}, 'failed', 0, ${`escrow-pay:${holdKey}:return`}, 'user', ${payer.id},
              ${due.toString()}::numeric, 'escrow.pay.return')`.execute(db())
    expect(await ledger().balance(db(), 'user', payer.id, 'usdc')).toBe(50n * USDC - due)
    expect(await ledgerInvariants(db())).toEqual([])

    // ---- the conversion (the gas of this transfer is still a hold: only the value converts) ----
    expect(await convertParkedHolds(db())).toEqual({ value: 1, gas: 0 })
    expect(await ledgerInvariants(db())).toEqual([])
    const e = await db()
      .selectFrom('escrows')
      .selectAll()
      .where('id', '=', q.escrowId)
      .executeTakeFirstOrThrow()
    const row = await db()
      .selectFrom('outgoingTransfers')
      .selectAll()
      .where('id', '=', queued.id)
      .executeTakeFirstOrThrow()
    expect(e.payHoldId).toBe(row.fundingHoldId)
    expect(await ledger().getHold(db(), e.payHoldId!)).toMatchObject({
      status: 'pending',
      amount: due,
      kind: 'escrow.pay',
    })
    expect((await ledger().accountsOf(db(), 'user', payer.id)).usdc).toMatchObject({
      balance: 50n * USDC,
      held: due,
      available: 50n * USDC - due,
    })
    expect(await ledger().balance(db(), 'withdrawal_hold', payer.id, 'usdc')).toBe(0n)
    const failurePostings = await db()
      .selectFrom('outgoingPostings')
      .select('idempotencyKey')
      .where('transferId', '=', queued.id)
      .where('outcome', '=', 'failed')
      .execute()
    expect(failurePostings).toEqual([])

    await settleEscrow(t)
    expect(await ledger().getHold(db(), e.payHoldId!)).toMatchObject({ status: 'posted', postedAmount: due })
    const v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
    expect(v.json().data.status).toBe('paid')
    expect(await ledger().balance(db(), 'user', payer.id, 'usdc')).toBe(50n * USDC - due)
    await expectConsistent(t)
  })
})
