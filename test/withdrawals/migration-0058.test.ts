// Migration 0058 on a withdrawal left open the way the code before it wrote one (written here with
// SQL): one hold of amount + fee funding the transfer, the fee a posting of the transfer's success
// in `outgoing_postings`. The new invariants see that shape as broken; the conversion splits the
// hold into the amount's (the transfer's funding hold) and the fee's (the withdrawal's) without
// moving any value, converts nothing twice and leaves withdrawals of the new shape alone; a retry
// of the request still finds the withdrawal, and the transfer then settles on the two holds.
import { createHash } from 'node:crypto'
import { type Kysely, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { splitOpenWithdrawals } from '../../src/db/migrations/0058-withdrawal-fee-holds.ts'
import { up as requireFeeHolds } from '../../src/db/migrations/0059-withdrawal-fee-hold-required.ts'
import { SimulatedCrash } from '../../src/modules/settlement/outgoing/types.ts'
import { ledgerInvariants } from '../../src/modules/settlement/reconcile/checks.ts'
import { reservationInvariants } from '../../src/modules/settlement/reconcile/reservations.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import {
  AVAX,
  expectConsistent,
  freshAddress,
  fundUser,
  settleAll,
  walletAddress,
  withdrawAvax,
} from './helpers.ts'

let t: TestApp
const FEE = AVAX / 1000n

beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

const db = () => t.database.db
const raw = () => t.database.db as unknown as Kysely<any>
const ledger = () => t.app.services.ledger

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
      await t.drain()
      if (!stopped) t.clock.advance(5_000)
    }
  } finally {
    t.crash.hook = undefined
  }
  expect(stopped).toBe(true)
}

/** Everything the conversion must not change: every account's balance and held, and the entries. */
async function money() {
  const [accounts, entries] = await Promise.all([
    db().selectFrom('ledgerAccounts').select(['id', 'balance', 'held']).orderBy('id').execute(),
    db()
      .selectFrom('ledgerEntries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ])
  return { accounts, entries: Number(entries.n) }
}

describe('migration 0058: a withdrawal’s fee gets a hold of its own', () => {
  it('splits the amount + fee hold of an open withdrawal without moving value, once', async () => {
    const user = await createUser(t)
    await fundUser(t, 0, user, 'avax', 3n * AVAX)
    const address = (await walletAddress(t, user)).toLowerCase()

    // A withdrawal of the new shape, settled already: left alone.
    const settled = await withdrawAvax(t, user, 0.1, freshAddress())
    await settleAll(t)

    // The open one, stopped before signing, then written back into the old shape.
    const { withdrawalId, transferId } = await withdrawAvax(t, user, 0.5, freshAddress())
    await stopBeforeSigning(transferId)
    const w0 = await db()
      .selectFrom('withdrawals')
      .selectAll()
      .where('id', '=', withdrawalId)
      .executeTakeFirstOrThrow()
    const wallet = (await ledger().getHold(db(), w0.holdId!))!.accountId
    // (as the database was at 0058: 0059's check refuses a fee without its hold from then on)
    await sql`alter table withdrawals drop constraint withdrawals_fee_held`.execute(raw())
    await sql`update withdrawals set fee_hold_id = null where id = ${withdrawalId}`.execute(raw())
    await sql`delete from ledger_holds where id = ${w0.feeHoldId}`.execute(raw())
    // (the old code's input hash: a hold of amount + fee)
    const oldInput = {
      op: 'hold',
      coin: 'avax',
      account: wallet,
      amount: String(AVAX / 2n + FEE),
      kind: 'withdrawal',
    }
    const oldHash = createHash('sha256').update(JSON.stringify(oldInput)).digest('hex')
    await sql`
      update ledger_holds set amount = amount + ${FEE.toString()}::numeric, input_hash = ${oldHash}
      where id = ${w0.holdId}`.execute(raw())
    await sql`
      insert into outgoing_postings
        (transfer_id, outcome, seq, idempotency_key, account_kind, account_owner_id, amount, kind)
      values (${transferId}, 'completed', 0, ${`withdrawal:${withdrawalId}:fee`}, 'treasury', ${address},
              ${FEE.toString()}::numeric, 'withdrawal.fee')`.execute(raw())
    // The old shape was sound money (the same held total); the new invariants refuse it.
    expect(await ledgerInvariants(db())).toEqual([])
    expect((await reservationInvariants(db())).map((v) => [v.check, v.id])).toEqual(
      expect.arrayContaining([
        ['transfer_not_held', transferId],
        ['withdrawal_fee_hold', withdrawalId],
      ]),
    )
    const before = await money()

    // ---- the conversion ----
    expect(await splitOpenWithdrawals(raw())).toBe(1)
    expect(await splitOpenWithdrawals(raw())).toBe(0)
    await requireFeeHolds(raw())
    // A withdrawal written the old way from now on (a process of the old version) is refused.
    await expect(
      sql`update withdrawals set fee_hold_id = null where id = ${withdrawalId}`.execute(raw()),
    ).rejects.toThrow(/withdrawals_fee_held/)
    expect(await money()).toEqual(before)
    expect(await ledgerInvariants(db())).toEqual([])
    expect(await reservationInvariants(db())).toEqual([])
    const w = await db()
      .selectFrom('withdrawals')
      .selectAll()
      .where('id', '=', withdrawalId)
      .executeTakeFirstOrThrow()
    expect(w.holdId).toBe(w0.holdId)
    expect(await ledger().getHold(db(), w.holdId!)).toMatchObject({ status: 'pending', amount: AVAX / 2n })
    expect(await ledger().getHold(db(), w.feeHoldId!)).toMatchObject({
      status: 'pending',
      amount: FEE,
      kind: 'withdrawal.fee',
      accountId: wallet,
      expiresAt: null,
    })
    expect(
      await db().selectFrom('outgoingPostings').selectAll().where('transferId', '=', transferId).execute(),
    ).toEqual([])
    // The settled withdrawal kept its holds.
    const other = await db()
      .selectFrom('withdrawals')
      .selectAll()
      .where('id', '=', settled.withdrawalId)
      .executeTakeFirstOrThrow()
    expect(await ledger().getHold(db(), other.feeHoldId!)).toMatchObject({
      status: 'posted',
      postedAmount: FEE,
    })

    // The request run again (its hold's key and the new input) answers the same hold.
    const again = await db()
      .transaction()
      .execute((tx) =>
        ledger().hold(tx, {
          key: `withdrawal:${withdrawalId}:hold`,
          coin: 'avax',
          account: wallet,
          amount: AVAX / 2n,
          kind: 'withdrawal',
        }),
      )
    expect(again).toEqual({ id: w.holdId, replayed: true })

    // The transfer carries on: the amount to the chain, the fee to the address's treasury, once each.
    const treasury = async () => (await ledger().accountsOf(db(), 'treasury', address)).avax!.balance
    const treasuryBefore = await treasury()
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
    expect(await ledger().getHold(db(), w.feeHoldId!)).toMatchObject({ status: 'posted', postedAmount: FEE })
    const gas = await db()
      .selectFrom('outgoingTransfers')
      .select('gasHoldId')
      .where('id', '=', transferId)
      .executeTakeFirstOrThrow()
    const gasPosted = (await ledger().getHold(db(), gas.gasHoldId!))!.postedAmount
    expect(await treasury()).toBe(treasuryBefore + FEE - gasPosted)
    expect(await ledger().balance(db(), 'user', user.id, 'avax')).toBe(
      3n * AVAX - AVAX / 10n - FEE - AVAX / 2n - FEE,
    )
    expect(await reservationInvariants(db())).toEqual([])
    await expectConsistent(t)
  })
})
