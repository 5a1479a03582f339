// Outcomes of outgoing transfers reach their callers through report jobs written in the same
// transaction as settlement's own change. Between the settlement's commit and its report, the
// money is already exact (ledger = chain, the funding hold settled; a withdrawal's fee still held,
// the same available balance); the report then resolves the caller's own holds (the fee) and
// updates its records, once, however often it runs.
import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { SimulatedCrash } from '../../src/modules/settlement/outgoing/types.ts'
import type { JobKind } from '../../src/platform/jobs/queue.ts'
import { overpaidEscrowPartlyReleased, post } from '../escrow/helpers.ts'
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
  walletAddress,
  withdrawAvax,
  withdrawCoin,
} from '../withdrawals/helpers.ts'

let t: TestApp
const FEE = AVAX / 1000n

beforeAll(async () => {
  t = await createTestApp()
})
afterEach(() => {
  t.crash.hook = undefined
  t.app.services.chain.devnet!.setDown(false)
})
afterAll(() => t?.close())

const withdraw = (user: TestUser, amount: number, to: string) => withdrawAvax(t, user, amount, to)

function withdrawal(id: string) {
  return t.database.db.selectFrom('withdrawals').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

function transfer(id: string) {
  return t.database.db
    .selectFrom('outgoingTransfers')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
}

async function countMails(user: TestUser, kind: string) {
  const rows = await t.database.db
    .selectFrom('mails')
    .select('id')
    .where('toAddress', '=', user.email)
    .where('kind', '=', kind)
    .execute()
  return rows.length
}

async function feeRecords(userId: string) {
  return t.database.db
    .selectFrom('transactions')
    .select(['id', 'transferId', 'txHash'])
    .where('ownerId', '=', userId)
    .where('method', '=', 'fee')
    .execute()
}

/**
 * The report jobs written for a transfer, oldest first: a run's first write can carry the start's
 * report with another (same created_at), and ids made in one process sort in the order made.
 */
function reports(transferId: string) {
  return t.database.db
    .selectFrom('jobs')
    .select(['kind', 'payload', 'status'])
    .where('kind', 'like', 'transfer.%')
    .where(sql<string>`payload->>'transferId'`, '=', transferId)
    .orderBy('createdAt')
    .orderBy('id')
    .execute()
}

/**
 * Runs ready jobs batch by batch: a job enqueued while a batch runs (the report of a settlement in
 * it) waits for the next batch. That holds open, for the hooks below, the window between a
 * settlement's commit and its report, which the worker's pool would close at once by running the
 * report in a slot beside the send (in production another process may take it later).
 */
async function runBatches() {
  while ((await t.app.services.jobs.runOnce(20)) > 0) {}
}

/** Runs the queue in batches, moving the clock, until the hook fired. */
async function runUntil(done: () => boolean) {
  for (let i = 0; i < 30 && !done(); i++) {
    await runBatches()
    if (!done()) t.clock.advance(5_000)
  }
  expect(done()).toBe(true)
}

describe('outcome reports', () => {
  it('books the amount with the settlement, and the fee and the withdrawal with its report, once', async () => {
    const user = await createUser(t)
    await fundUser(t, 10, user, 'avax', 2n * AVAX)
    const from = (await walletAddress(t, user)).toLowerCase()
    const to = freshAddress()
    const { withdrawalId, transferId } = await withdraw(user, 0.5, to)

    // The worker dies right after the settlement committed: its report has not run.
    let between: Record<string, unknown> | undefined
    t.crash.hook = async (at, id) => {
      if (at !== 'after-settle' || id !== transferId || between) return
      const [w, tr] = await Promise.all([withdrawal(withdrawalId), transfer(transferId)])
      between = {
        transfer: tr.status,
        withdrawal: w.status,
        wallet: await balanceOf(t, user.id, 'avax'),
        hold: (await t.app.services.ledger.getHold(t.database.db, w.holdId!))?.status,
        feeHold: (await t.app.services.ledger.getHold(t.database.db, w.feeHoldId!))?.status,
        held: (await t.app.services.ledger.accountsOf(t.database.db, 'user', user.id)).avax?.held,
        parkedFee: await t.app.services.ledger.balance(t.database.db, 'treasury', from, 'avax'),
        onChain: await t.app.services.chain.balanceOf(to, 'avax'),
        mails: await countMails(user, 'withdrawal_completed'),
        pendingReport: (await reports(transferId)).some(
          (r) => r.kind === 'transfer.settled' && r.status === 'queued',
        ),
      }
      await expectConsistent(t)
      throw new SimulatedCrash(at)
    }
    await runUntil(() => between !== undefined)
    t.crash.hook = undefined
    expect(between).toMatchObject({
      transfer: 'completed',
      withdrawal: 'processing',
      wallet: 2n * AVAX - AVAX / 2n - FEE,
      hold: 'posted',
      // the fee is still held: the withdrawal's report posts it
      feeHold: 'pending',
      held: FEE,
      onChain: AVAX / 2n,
      mails: 0,
      pendingReport: true,
    })

    // The next worker runs the report.
    await settleAll(t)
    const w = await withdrawal(withdrawalId)
    const tr = await transfer(transferId)
    expect(w).toMatchObject({ status: 'completed', txHash: tr.txHash, retryCount: 0 })
    const fees = await feeRecords(user.id)
    expect(fees).toHaveLength(1)
    // The amount's hold was posted to the chain by the settlement; the fee's by the report, to the
    // address's treasury account (parked there as platform value), and the fee record names it.
    const hold = (await t.app.services.ledger.getHold(t.database.db, w.holdId!))!
    expect(hold).toMatchObject({ status: 'posted', postedAmount: AVAX / 2n, amount: AVAX / 2n })
    const feeHold = (await t.app.services.ledger.getHold(t.database.db, w.feeHoldId!))!
    expect(feeHold).toMatchObject({ status: 'posted', postedAmount: FEE, amount: FEE })
    expect(fees[0]!.transferId).toBe(feeHold.transferId)
    const legs = await t.app.services.ledger.entries(t.database.db, feeHold.transferId!)
    expect(legs.map((l) => l.amount).sort()).toEqual([-FEE, FEE].sort())
    expect(await t.app.services.ledger.balance(t.database.db, 'treasury', from, 'avax')).toBe(
      (between!.parkedFee as bigint) + FEE,
    )
    expect(await countMails(user, 'withdrawal_completed')).toBe(1)

    // The same report run again changes nothing.
    const settled = (await reports(transferId)).filter((r) => r.kind === 'transfer.settled')
    expect(settled).toHaveLength(1)
    const version = w.version
    await t.app.services.jobs.enqueue(t.database.db, 'transfer.settled', settled[0]!.payload)
    await t.app.services.jobs.enqueue(t.database.db, 'transfer.started', { ...settled[0]!.payload })
    await t.drain()
    expect((await withdrawal(withdrawalId)).version).toBe(version)
    expect(await feeRecords(user.id)).toHaveLength(1)
    expect(await countMails(user, 'withdrawal_completed')).toBe(1)
    expect(await balanceOf(t, user.id, 'avax')).toBe(2n * AVAX - AVAX / 2n - FEE)
    await expectConsistent(t)
  })

  it('writes no report job for an optional event the purpose has no handler for', async () => {
    const user = await createUser(t)
    await fundUser(t, 12, user, 'usdc', 5_000_000n)
    const from = (await walletAddress(t, user)).toLowerCase()
    const { withdrawalId, transferId } = await withdrawCoin(t, user, 'usdc', 1.5, freshAddress())
    await settleAll(t)
    // A token sent from a custodial address needed native coin for its gas: the gas wallet topped
    // the address up. Its purpose handles only outcomes: its start wrote no job.
    const topUps = await t.database.db
      .selectFrom('outgoingTransfers')
      .select(['id', 'status'])
      .where('purpose', '=', 'gas.topup')
      .where('toAddress', '=', from)
      .execute()
    expect(topUps).toHaveLength(1)
    expect(topUps[0]!.status).toBe('completed')
    expect((await reports(topUps[0]!.id)).map((r) => r.kind)).toEqual(['transfer.settled'])
    // The withdrawal's purpose handles its start: that report was written and applied.
    expect((await withdrawal(withdrawalId)).status).toBe('completed')
    expect((await reports(transferId)).map((r) => r.kind)).toEqual(['transfer.started', 'transfer.settled'])
  })

  it('gives the hold back with a failure, and counts each failed attempt once', async () => {
    const user = await createUser(t)
    await fundUser(t, 11, user, 'avax', 2n * AVAX)
    // a contract that refuses the payment: the chain's refusal counts toward the limit of failures
    const to = await deployRefuser(t)
    const { withdrawalId, transferId } = await withdraw(user, 0.5, to)
    const sender = t.app.services.outgoing
    const maxFailures = sender.options.maxFailures
    sender.options.maxFailures = 2

    let between: Record<string, unknown> | undefined
    try {
      t.crash.hook = async (at, id) => {
        if (at !== 'after-settle' || id !== transferId || between) return
        between = {
          transfer: (await transfer(transferId)).status,
          withdrawal: (await withdrawal(withdrawalId)).status,
          wallet: await balanceOf(t, user.id, 'avax'),
          hold: (await t.app.services.ledger.getHold(t.database.db, (await withdrawal(withdrawalId)).holdId!))
            ?.status,
          held: (await t.app.services.ledger.accountsOf(t.database.db, 'user', user.id)).avax?.held,
        }
        throw new SimulatedCrash(at)
      }
      await runUntil(() => between !== undefined)
    } finally {
      t.crash.hook = undefined
      sender.options.maxFailures = maxFailures
    }
    // With the failure itself, the amount is back in the wallet; the fee comes back with the
    // withdrawal's report (its own hold, voided with the withdrawal's status).
    expect(between).toMatchObject({ transfer: 'failed', wallet: 2n * AVAX - FEE, hold: 'voided', held: FEE })
    expect(between!.withdrawal).not.toBe('failed')

    await settleAll(t)
    const w = await withdrawal(withdrawalId)
    expect(w).toMatchObject({ status: 'failed', retryCount: 2 })
    expect(w.errMsg).toHaveLength(2)
    expect(await t.app.services.ledger.getHold(t.database.db, w.feeHoldId!)).toMatchObject({
      status: 'voided',
    })
    expect(await balanceOf(t, user.id, 'avax')).toBe(2n * AVAX)
    expect(await countMails(user, 'withdrawal_failed')).toBe(1)

    // Reports of the failed attempt and of the outcome run again: nothing is counted twice.
    const again = await reports(transferId)
    expect(again.map((r) => r.kind)).toEqual([
      'transfer.started',
      'transfer.attempt-failed',
      'transfer.failed',
    ])
    for (const r of again)
      await t.app.services.jobs.enqueue(t.database.db, r.kind as JobKind, r.payload as never)
    await t.drain()
    expect(await withdrawal(withdrawalId)).toMatchObject({
      status: 'failed',
      retryCount: 2,
      version: w.version,
    })
    expect(await countMails(user, 'withdrawal_failed')).toBe(1)
    expect(await balanceOf(t, user.id, 'avax')).toBe(2n * AVAX)
    expect(await t.app.services.chain.balanceOf(to, 'avax')).toBe(0n)
    await expectConsistent(t)
  })

  it('counts a mined escrow leg as gone from the escrow before its report, so a release then is exact', async () => {
    const payer = await createUser(t)
    const receiver = await createUser(t)
    // An overpayment of 1 AVAX, returned to the payer with the last part; the first part released.
    const { q, payerBefore, receiverBefore } = await overpaidEscrowPartlyReleased(t, payer, receiver, 16)
    const firstPayout = await t.database.db
      .selectFrom('escrowLegs')
      .select(['id', 'amount'])
      .where('escrowId', '=', q.escrowId)
      .where('kind', '=', 'payout')
      .executeTakeFirstOrThrow()
    expect(BigInt(firstPayout.amount)).toBe(AVAX / 2n)

    // Right after the first payout is settled (mined, the escrow debited) and before its report
    // marks the leg completed, the payer releases the rest.
    let rest: { statusCode: number; body: string } | undefined
    let window: Record<string, unknown> | undefined
    t.crash.hook = async (at, id) => {
      if (at !== 'after-settle' || rest) return
      const tr = await transfer(id)
      if (tr.purpose !== 'escrow.leg' || tr.referenceId !== firstPayout.id) return
      const leg = await t.database.db
        .selectFrom('escrowLegs')
        .select('status')
        .where('id', '=', firstPayout.id)
        .executeTakeFirstOrThrow()
      window = { transfer: tr.status, leg: leg.status }
      rest = await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })
    }
    await runUntil(() => rest !== undefined)
    t.crash.hook = undefined
    expect(window).toEqual({ transfer: 'completed', leg: 'processing' })
    expect(rest?.statusCode, rest?.body).toBe(200)

    // Everything the escrow held went out exactly: the price to the receiver, the fees, and the
    // whole overpayment back to the payer.
    await settleAll(t)
    expect(await t.app.services.ledger.balance(t.database.db, 'escrow', q.escrowId, 'avax')).toBe(0n)
    expect(await balanceOf(t, receiver.id, 'avax')).toBe(receiverBefore + 2n * AVAX)
    expect(await balanceOf(t, payer.id, 'avax')).toBe(payerBefore + AVAX)
    const legs = await t.database.db
      .selectFrom('escrowLegs')
      .select(['kind', 'status'])
      .where('escrowId', '=', q.escrowId)
      .execute()
    expect(legs.every((l) => l.status === 'completed')).toBe(true)
    expect(legs.filter((l) => l.kind === 'refund')).toHaveLength(1)
    await expectConsistent(t)
  })

  it('refuses a report of a purpose nobody handles, without retrying it', async () => {
    const id = await t.app.services.jobs.enqueue(t.database.db, 'transfer.settled', {
      transferId: 'f'.repeat(24),
      purpose: 'nobody',
      referenceId: 'x',
      coin: 'avax',
      from: freshAddress().toLowerCase(),
      to: freshAddress().toLowerCase(),
      amount: '1',
      meta: {},
      txHash: `0x${'0'.repeat(64)}`,
      gasUsed: '21000',
      responseData: '{}',
      booked: {},
    })
    await t.drain()
    const job = await t.database.db
      .selectFrom('jobs')
      .select(['status', 'attempts'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(job).toEqual({ status: 'failed', attempts: 1 })
  })
})
