// The reservation invariants of withdrawals, each broken on purpose and seen reported: an open
// transfer's funding hold reserves exactly its amount (`transfer_not_held`), and a withdrawal's
// fee hold is pending (of exactly its fee) while the withdrawal or its transfer is open, posted in
// full once it completed and voided once it failed (`withdrawal_fee_hold`). Each break is written
// in a transaction that is rolled back after the check read it; one is committed to see a
// reconciliation run report it and halt the coin.
import { type Kysely, sql, type Transaction } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SimulatedCrash } from '../../src/modules/settlement/outgoing/types.ts'
import { reservationInvariants } from '../../src/modules/settlement/reconcile/reservations.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { deployRefuser } from '../helpers/refuser.ts'
import { AVAX, freshAddress, fundUser, settleAll, withdrawAvax } from '../withdrawals/helpers.ts'

let t: TestApp
type W = { id: string; holdId: string; feeHoldId: string; outgoingId: string }
let completed: W
let failed: W
let open: W

const db = () => t.database.db

async function withdrawalRow(id: string): Promise<W> {
  const w = await db().selectFrom('withdrawals').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  return { id: w.id, holdId: w.holdId!, feeHoldId: w.feeHoldId!, outgoingId: w.outgoingId! }
}

beforeAll(async () => {
  t = await createTestApp()
  const user = await createUser(t)
  await fundUser(t, 0, user, 'avax', 3n * AVAX)

  completed = await withdrawalRow((await withdrawAvax(t, user, 0.1, freshAddress())).withdrawalId)
  await settleAll(t)

  const sender = t.app.services.outgoing
  const maxFailures = sender.options.maxFailures
  sender.options.maxFailures = 2
  try {
    failed = await withdrawalRow((await withdrawAvax(t, user, 0.1, await deployRefuser(t))).withdrawalId)
    await settleAll(t)
  } finally {
    sender.options.maxFailures = maxFailures
  }

  // The last one stays open: its worker stops before signing.
  open = await withdrawalRow((await withdrawAvax(t, user, 0.1, freshAddress())).withdrawalId)
  let stopped = false
  t.crash.hook = (at, id) => {
    if (at !== 'before-sign' || id !== open.outgoingId) return
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
})
afterAll(() => t?.close())

class Rollback extends Error {}

/** The reservation violations (check, id) seen with `change` written, which is then rolled back. */
async function violationsWith(change: (tx: Transaction<any>) => Promise<unknown>) {
  let found: [string, string][] = []
  await db()
    .transaction()
    .execute(async (tx) => {
      await change(tx as unknown as Transaction<any>)
      found = (await reservationInvariants(tx)).map((v) => [v.check, v.id])
      throw new Rollback()
    })
    .catch((err) => {
      if (!(err instanceof Rollback)) throw err
    })
  return found
}

const setPending = (id: string) => (tx: Kysely<any>) =>
  sql`update ledger_holds set status = 'pending', resolution_key = null, resolved_at = null,
        posted_amount = 0, transfer_id = null where id = ${id}`.execute(tx)
const setVoided = (id: string) => (tx: Kysely<any>) =>
  sql`update ledger_holds set status = 'voided', resolution_key = 'test:void', resolved_at = now(),
        posted_amount = 0, transfer_id = null where id = ${id}`.execute(tx)
const setPosted = (id: string) => (tx: Kysely<any>) =>
  sql`update ledger_holds set status = 'posted', resolution_key = 'test:post', resolved_at = now(),
        posted_amount = amount where id = ${id}`.execute(tx)

describe('withdrawal reservation invariants', () => {
  it('hold in the sound state: a completed, a failed and an open withdrawal', async () => {
    const statuses = await db()
      .selectFrom('withdrawals')
      .select(['id', 'status'])
      .where('id', 'in', [completed.id, failed.id, open.id])
      .execute()
    expect(Object.fromEntries(statuses.map((w) => [w.id, w.status]))).toEqual({
      [completed.id]: 'completed',
      [failed.id]: 'failed',
      [open.id]: expect.stringMatching(/^(pending|processing)$/),
    })
    expect(await reservationInvariants(db())).toEqual([])
  })

  it('report an open transfer whose funding hold reserves more than its amount (the old amount + fee)', async () => {
    const fee = await t.app.services.ledger.getHold(db(), open.feeHoldId)
    expect(
      await violationsWith((tx) =>
        sql`update ledger_holds set amount = amount + ${fee!.amount.toString()}::numeric
            where id = ${open.holdId}`.execute(tx),
      ),
    ).toEqual([['transfer_not_held', open.outgoingId]])
  })

  it('report an open withdrawal whose fee hold was voided, or posted, before its outcome', async () => {
    expect(await violationsWith(setVoided(open.feeHoldId))).toEqual([['withdrawal_fee_hold', open.id]])
    expect(await violationsWith(setPosted(open.feeHoldId))).toEqual([['withdrawal_fee_hold', open.id]])
  })

  it('report an open withdrawal with a fee and no fee hold (and the hold then owned by nobody)', async () => {
    // (what a process of the version before 0058 would write; 0059's check refuses it, so the
    // check is dropped too, in the same rolled-back transaction)
    const found = await violationsWith(async (tx) => {
      await sql`alter table withdrawals drop constraint withdrawals_fee_held`.execute(tx)
      await sql`update withdrawals set fee_hold_id = null where id = ${open.id}`.execute(tx)
    })
    expect(found).toEqual(
      expect.arrayContaining([
        ['withdrawal_fee_hold', open.id],
        ['hold_without_owner', open.feeHoldId],
      ]),
    )
    expect(found).toHaveLength(2)
  })

  it('report a fee hold of another amount than the fee', async () => {
    expect(
      await violationsWith((tx) =>
        sql`update ledger_holds set amount = amount + 1 where id = ${open.feeHoldId}`.execute(tx),
      ),
    ).toEqual([['withdrawal_fee_hold', open.id]])
  })

  it('report a completed withdrawal whose fee was not charged: its hold pending or voided', async () => {
    expect(await violationsWith(setPending(completed.feeHoldId))).toEqual([
      ['withdrawal_fee_hold', completed.id],
    ])
    expect(await violationsWith(setVoided(completed.feeHoldId))).toEqual([
      ['withdrawal_fee_hold', completed.id],
    ])
    expect(
      await violationsWith((tx) =>
        sql`update ledger_holds set posted_amount = posted_amount - 1 where id = ${completed.feeHoldId}`.execute(
          tx,
        ),
      ),
    ).toEqual([['withdrawal_fee_hold', completed.id]])
  })

  it('report a failed withdrawal whose fee was charged, or is still held', async () => {
    expect(await violationsWith(setPosted(failed.feeHoldId))).toEqual([['withdrawal_fee_hold', failed.id]])
    expect(await violationsWith(setPending(failed.feeHoldId))).toEqual([['withdrawal_fee_hold', failed.id]])
  })

  it('are checked by the reconciliation run, which halts the coin', async () => {
    const s = t.app.services.settlement
    // A completed withdrawal marked failed: its fee was charged for a withdrawal said to have failed.
    await sql`update withdrawals set status = 'failed' where id = ${completed.id}`.execute(db())
    try {
      const run = await s.reconciliation.runNow()
      expect(run.violations).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            check: 'withdrawal_fee_hold',
            id: completed.id,
            coin: 'avax',
            detail: expect.objectContaining({ status: 'failed', holdStatus: 'posted' }),
          }),
        ]),
      )
      expect(run.halted).toContain('avax')
    } finally {
      await sql`update withdrawals set status = 'completed' where id = ${completed.id}`.execute(db())
      await s.halts.resume('avax', 'operator-1', 'test break undone').catch(() => {})
    }
    expect(await reservationInvariants(db())).toEqual([])
  })
})
