// A withdrawal's fee is a hold of its own, resolved by the withdrawal's outcome report in the
// transaction that moves the withdrawal to completed or failed: posted once to the sending
// address's treasury account, or voided once. Between settlement's commit and the report (a worker
// dead in between) the fee is still held and every reservation invariant holds; a report whose
// transaction dies after the fee's posting (a fault injected in the database in front of the
// withdrawal's update) leaves nothing behind, and its retry books the fee exactly once.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SimulatedCrash } from '../../src/modules/settlement/outgoing/types.ts'
import { reservationInvariants } from '../../src/modules/settlement/reconcile/reservations.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { deployRefuser } from '../helpers/refuser.ts'
import {
  AVAX,
  balanceOf,
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
const ledger = () => t.app.services.ledger

function withdrawal(id: string) {
  return db().selectFrom('withdrawals').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

/** Ledger transfers written under `key` (a posting's key is its transfer's). */
async function transfersKeyed(key: string) {
  return db().selectFrom('ledgerTransfers').select('id').where('idempotencyKey', '=', key).execute()
}

function feeRecords(userId: string) {
  return db()
    .selectFrom('transactions')
    .select(['id', 'transferId'])
    .where('ownerId', '=', userId)
    .where('method', '=', 'fee')
    .execute()
}

/** The outcome report jobs of a transfer. */
function reports(transferId: string, kind: 'transfer.settled' | 'transfer.failed') {
  return db()
    .selectFrom('jobs')
    .select(['payload', 'status'])
    .where('kind', '=', kind)
    .where(sql<string>`payload->>'transferId'`, '=', transferId)
    .execute()
}

/**
 * A fault in front of the withdrawal's own update: the report's transaction fails when it moves
 * withdrawal `id` to `status`, after everything it did before (the fee's hold resolved, the fee
 * record written) in that transaction.
 */
async function failUpdateTo(id: string, status: 'completed' | 'failed') {
  await sql
    .raw(`
      create or replace function test_refuse_withdrawal_update() returns trigger language plpgsql as $$
      begin
        if new.id = '${id}' and new.status = '${status}' and old.status <> new.status then
          raise exception 'injected fault: the report dies here';
        end if;
        return new;
      end $$`)
    .execute(db())
  await sql`
    create trigger test_refuse_withdrawal_update before update on withdrawals
    for each row execute function test_refuse_withdrawal_update()`.execute(db())
}

async function removeFault() {
  await sql`drop trigger if exists test_refuse_withdrawal_update on withdrawals`.execute(db())
  await sql`drop function if exists test_refuse_withdrawal_update()`.execute(db())
}

/** Runs the queue, moving the clock past the report's backoff, a few rounds. */
async function retryReports() {
  for (let i = 0; i < 3; i++) {
    t.clock.advance(60_000)
    await t.drain()
  }
}

describe('a withdrawal’s fee hold', () => {
  it('is still held between the settlement and its report, then posted to the treasury once', async () => {
    const user = await createUser(t)
    await fundUser(t, 0, user, 'avax', 2n * AVAX)
    const from = (await walletAddress(t, user)).toLowerCase()
    const { withdrawalId, transferId } = await withdrawAvax(t, user, 0.5, freshAddress())
    const w0 = await withdrawal(withdrawalId)

    // The worker dies right after the settlement committed, before the report ran.
    let between: Record<string, unknown> | undefined
    t.crash.hook = async (at, id) => {
      if (at !== 'after-settle' || id !== transferId || between) return
      between = {
        withdrawal: (await withdrawal(withdrawalId)).status,
        hold: (await ledger().getHold(db(), w0.holdId!))?.status,
        feeHold: (await ledger().getHold(db(), w0.feeHoldId!))?.status,
        available: await balanceOf(t, user.id, 'avax'),
        treasury: await ledger().balance(db(), 'treasury', from, 'avax'),
        violations: await reservationInvariants(db()),
      }
      throw new SimulatedCrash(at)
    }
    try {
      // Batch by batch: a report written while a batch runs waits for the next one, so the window
      // between the settlement's commit and its report stays open for the hook.
      for (let i = 0; i < 30 && !between; i++) {
        while (!between && (await t.app.services.jobs.runOnce(20)) > 0) {}
        if (!between) t.clock.advance(5_000)
      }
    } finally {
      t.crash.hook = undefined
    }
    expect(between).toMatchObject({
      withdrawal: 'processing',
      hold: 'posted',
      feeHold: 'pending',
      available: 2n * AVAX - AVAX / 2n - FEE,
      violations: [],
    })
    expect(await transfersKeyed(`withdrawal:${withdrawalId}:fee`)).toEqual([])

    // The next worker runs the report: the fee goes to the address's treasury account, once.
    await settleAll(t)
    const w = await withdrawal(withdrawalId)
    expect(w.status).toBe('completed')
    const fee = (await ledger().getHold(db(), w0.feeHoldId!))!
    expect(fee).toMatchObject({
      status: 'posted',
      postedAmount: FEE,
      resolutionKey: `withdrawal:${w.id}:fee`,
    })
    expect(await transfersKeyed(`withdrawal:${withdrawalId}:fee`)).toEqual([{ id: fee.transferId }])
    expect(await ledger().balance(db(), 'treasury', from, 'avax')).toBe((between!.treasury as bigint) + FEE)
    expect(await feeRecords(user.id)).toEqual([expect.objectContaining({ transferId: fee.transferId })])

    // The report run again books nothing.
    const [report] = await reports(transferId, 'transfer.settled')
    await t.app.services.jobs.enqueue(db(), 'transfer.settled', report!.payload as never)
    await t.drain()
    expect(await transfersKeyed(`withdrawal:${withdrawalId}:fee`)).toHaveLength(1)
    expect(await feeRecords(user.id)).toHaveLength(1)
    expect(await ledger().getHold(db(), w0.feeHoldId!)).toEqual(fee)
    expect(await balanceOf(t, user.id, 'avax')).toBe(2n * AVAX - AVAX / 2n - FEE)
    expect(await reservationInvariants(db())).toEqual([])
    await expectConsistent(t)
  })

  it('is left held by a report that dies after posting it; the retried report posts it once', async () => {
    const user = await createUser(t)
    await fundUser(t, 1, user, 'avax', 2n * AVAX)
    const from = (await walletAddress(t, user)).toLowerCase()
    const { withdrawalId } = await withdrawAvax(t, user, 0.25, freshAddress())
    const w0 = await withdrawal(withdrawalId)
    await failUpdateTo(withdrawalId, 'completed')
    let treasuryBefore: bigint
    try {
      await settleAll(t)
      // The transfer settled; its report failed as a whole: nothing of the fee was booked.
      expect((await withdrawal(withdrawalId)).status).toBe('processing')
      expect(await ledger().getHold(db(), w0.feeHoldId!)).toMatchObject({
        status: 'pending',
        resolutionKey: null,
      })
      expect(await transfersKeyed(`withdrawal:${withdrawalId}:fee`)).toEqual([])
      expect(await feeRecords(user.id)).toEqual([])
      expect(await balanceOf(t, user.id, 'avax')).toBe(2n * AVAX - AVAX / 4n - FEE)
      expect(await reservationInvariants(db())).toEqual([])
      treasuryBefore = await ledger().balance(db(), 'treasury', from, 'avax')
    } finally {
      await removeFault()
    }
    await retryReports()
    expect((await withdrawal(withdrawalId)).status).toBe('completed')
    const fee = (await ledger().getHold(db(), w0.feeHoldId!))!
    expect(fee).toMatchObject({ status: 'posted', postedAmount: FEE })
    expect(await transfersKeyed(`withdrawal:${withdrawalId}:fee`)).toHaveLength(1)
    expect(await feeRecords(user.id)).toHaveLength(1)
    expect(await ledger().balance(db(), 'treasury', from, 'avax')).toBe(treasuryBefore + FEE)
    expect(await balanceOf(t, user.id, 'avax')).toBe(2n * AVAX - AVAX / 4n - FEE)
    expect(await reservationInvariants(db())).toEqual([])
    await expectConsistent(t)
  })

  it('is voided with the failure’s report, once, even when that report dies first', async () => {
    const user = await createUser(t)
    await fundUser(t, 2, user, 'avax', AVAX)
    const { withdrawalId, transferId } = await withdrawAvax(t, user, 0.25, await deployRefuser(t))
    const w0 = await withdrawal(withdrawalId)
    await failUpdateTo(withdrawalId, 'failed')
    const sender = t.app.services.outgoing
    const maxFailures = sender.options.maxFailures
    sender.options.maxFailures = 2
    try {
      await settleAll(t)
      // The amount's hold was voided with the failure; the fee's waits for the report.
      expect((await withdrawal(withdrawalId)).status).toBe('processing')
      expect(await ledger().getHold(db(), w0.holdId!)).toMatchObject({ status: 'voided' })
      expect(await ledger().getHold(db(), w0.feeHoldId!)).toMatchObject({ status: 'pending' })
      expect(await balanceOf(t, user.id, 'avax')).toBe(AVAX - FEE)
      expect(await reservationInvariants(db())).toEqual([])
    } finally {
      sender.options.maxFailures = maxFailures
      await removeFault()
    }
    await retryReports()
    expect((await withdrawal(withdrawalId)).status).toBe('failed')
    const voided = (await ledger().getHold(db(), w0.feeHoldId!))!
    expect(voided).toMatchObject({
      status: 'voided',
      postedAmount: 0n,
      resolutionKey: `withdrawal:${withdrawalId}:fee-void`,
    })
    expect(await transfersKeyed(`withdrawal:${withdrawalId}:fee`)).toEqual([])
    expect(await feeRecords(user.id)).toEqual([])
    expect((await ledger().accountsOf(db(), 'user', user.id)).avax).toMatchObject({
      balance: AVAX,
      held: 0n,
      available: AVAX,
    })
    // The report run again voids nothing twice.
    const [report] = await reports(transferId, 'transfer.failed')
    await t.app.services.jobs.enqueue(db(), 'transfer.failed', report!.payload as never)
    await t.drain()
    expect(await ledger().getHold(db(), w0.feeHoldId!)).toEqual(voided)
    expect(await balanceOf(t, user.id, 'avax')).toBe(AVAX)
    expect(await reservationInvariants(db())).toEqual([])
    await expectConsistent(t)
  })

  it('is not taken when the wallet covers the amount but not the fee: nothing of the request is kept', async () => {
    const user = await createUser(t)
    await fundUser(t, 3, user, 'avax', AVAX)
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: user.token,
      payload: { amount: 1, coin: 'avax', address: freshAddress(), password: user.password },
    })
    expect(res.statusCode, res.body).toBe(422)
    expect(res.json()).toMatchObject({ data: { code: 'INSUFFICIENT_BALANCE' } })
    const account = (await ledger().accountsOf(db(), 'user', user.id)).avax!
    expect(account).toMatchObject({ balance: AVAX, held: 0n })
    const holds = await db()
      .selectFrom('ledgerHolds')
      .select('id')
      .where('accountId', '=', account.id)
      .execute()
    expect(holds).toEqual([])
    expect(
      await db().selectFrom('withdrawals').select('id').where('ownerId', '=', user.id).execute(),
    ).toEqual([])
  })
})
