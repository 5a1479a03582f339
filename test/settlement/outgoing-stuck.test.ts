// Stuck transactions on the dev chain: a transaction the chain does not mine in time is replaced at
// the same nonce with higher fees (both stored, whichever is mined settles the transfer), a later
// transfer from the same address lands as soon as the stuck one is unblocked, and a shutdown with
// a send in flight leaves it to the next start, which completes it once.
import { type Hex, parseTransaction } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { bump, bumpTip, replacementFees } from '../../src/modules/settlement/outgoing/replace.ts'
import { SimulatedCrash } from '../../src/modules/settlement/outgoing/types.ts'
import type { FeeEstimate } from '../../src/platform/chain/types.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  AVAX,
  balanceOf,
  expectConsistent,
  freshAddress,
  fundUser,
  settleAll,
  walletAddress,
  withdrawAvax,
} from '../withdrawals/helpers.ts'

let t: TestApp
const FEE = AVAX / 1000n

beforeAll(async () => {
  t = await createTestApp()
})
afterEach(async () => {
  t.crash.hook = undefined
  await t.app.services.chain.devnet!.setAutomine(true)
})
afterAll(async () => {
  await t?.close()
})

const chain = () => t.app.services.chain
const db = () => t.database.db

const withdraw = (user: TestUser, amount: number, to: string) => withdrawAvax(t, user, amount, to)

const transfer = (id: string) =>
  db().selectFrom('outgoingTransfers').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
const signedTxs = (id: string) =>
  db()
    .selectFrom('outgoingTransactions')
    .select(['seq', 'txHash', 'raw', 'status'])
    .where('transferId', '=', id)
    .orderBy('seq')
    .execute()
const withdrawal = (id: string) =>
  db().selectFrom('withdrawals').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

/** A user whose address already holds platform gas (its first withdrawal brought a top-up). */
async function warmUser(payerIndex: number) {
  const user = await createUser(t)
  await fundUser(t, payerIndex, user, 'avax', 5n * AVAX)
  await withdraw(user, 0.01, freshAddress())
  await settleAll(t)
  return { user, address: (await walletAddress(t, user)).toLowerCase() }
}

/** Whether no job is running and none is queued and due: a worker loop has nothing left to do. */
async function jobsIdle() {
  const { n } = await db()
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) =>
      eb.or([
        eb('status', '=', 'running'),
        eb.and([eb('status', '=', 'queued'), eb('runAt', '<=', t.clock.now())]),
      ]),
    )
    .executeTakeFirstOrThrow()
  return Number(n) === 0
}

/** Waits for `cond` while a worker loop runs (it is checked every few milliseconds). */
async function waitFor(cond: () => Promise<boolean>, rounds = 1500) {
  for (let i = 0; i < rounds; i++) {
    if (await cond()) return
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error('condition not reached')
}

/** Runs the queue until `cond` holds, moving the clock `stepMs` between rounds. */
async function until(cond: () => Promise<boolean>, stepMs: number, rounds = 40) {
  for (let i = 0; i < rounds; i++) {
    await t.drain()
    if (await cond()) return i
    t.clock.advance(stepMs)
  }
  throw new Error('condition not reached')
}

describe('fee bumps', () => {
  it('raises the max fee by at least 12.5 % and the tip by at least 10 %, and to the current estimate when that is higher', () => {
    expect(bump(8n)).toBe(9n)
    expect(bump(1000n)).toBe(1125n)
    expect(bump(1001n)).toBe(1127n)
    expect(bump(0n)).toBe(1n)
    expect(bumpTip(1000n)).toBe(1100n)
    expect(bumpTip(1001n)).toBe(1102n)
    expect(bumpTip(5n)).toBe(6n)
    const old: FeeEstimate = { type: 'eip1559', maxFeePerGas: 2000n, maxPriorityFeePerGas: 1000n }
    expect(replacementFees(old, { type: 'eip1559', maxFeePerGas: 100n, maxPriorityFeePerGas: 10n })).toEqual({
      type: 'eip1559',
      maxFeePerGas: 2250n,
      maxPriorityFeePerGas: 1100n,
    })
    expect(
      replacementFees(old, { type: 'eip1559', maxFeePerGas: 9000n, maxPriorityFeePerGas: 3000n }),
    ).toEqual({
      type: 'eip1559',
      maxFeePerGas: 9000n,
      maxPriorityFeePerGas: 3000n,
    })
    expect(replacementFees({ type: 'legacy', gasPrice: 800n }, { type: 'legacy', gasPrice: 100n })).toEqual({
      type: 'legacy',
      gasPrice: 900n,
    })
  })
})

describe('a stuck transaction', () => {
  it('is replaced at its nonce with higher fees; the later transfer lands at once after it', async () => {
    const { user, address } = await warmUser(12)
    const c = chain()
    const devnet = c.devnet!
    const nonceBefore = await c.getNonce(address, 'latest')
    const walletBefore = await balanceOf(t, user.id, 'avax')

    // The first transfer is signed with fees the chain will never accept in a block.
    await devnet.setAutomine(false)
    const estimateFees = c.estimateFees
    c.estimateFees = async () => ({ type: 'eip1559', maxFeePerGas: 1n, maxPriorityFeePerGas: 1n })
    const to1 = freshAddress()
    const first = await withdraw(user, 0.5, to1)
    try {
      await until(async () => (await transfer(first.transferId)).status === 'sent', 1_000)
    } finally {
      c.estimateFees = estimateFees
    }
    const to2 = freshAddress()
    const second = await withdraw(user, 0.25, to2)
    await until(async () => (await transfer(second.transferId)).status === 'sent', 1_000)
    const stuck = await transfer(first.transferId)
    expect(Number((await transfer(second.transferId)).nonce)).toBe(Number(stuck.nonce) + 1)

    // Blocks come and go: neither is mined (the first pays too little, the second waits for it).
    await devnet.mine(3)
    t.clock.advance(20_000)
    await t.drain()
    expect(await c.getNonce(address, 'latest')).toBe(nonceBefore)
    expect((await signedTxs(first.transferId)).map((x) => x.status)).toEqual(['pending'])
    expect((await withdrawal(first.withdrawalId)).status).toBe('processing')

    // Past the stuck time, the first is replaced: same nonce, max fee +12.5 % and tip +10 % at least.
    await until(async () => (await signedTxs(first.transferId)).length === 2, 20_000)
    expect((await signedTxs(second.transferId)).length).toBe(1)
    const [orig, repl] = await signedTxs(first.transferId)
    const a = parseTransaction(orig!.raw as Hex)
    const b = parseTransaction(repl!.raw as Hex)
    expect(b.nonce).toBe(a.nonce)
    expect(b.to).toBe(a.to)
    expect(b.value).toBe(a.value)
    expect(b.maxFeePerGas! >= (a.maxFeePerGas! * 1125n) / 1000n).toBe(true)
    expect(b.maxPriorityFeePerGas! >= (a.maxPriorityFeePerGas! * 1100n) / 1000n).toBe(true)
    expect((await transfer(first.transferId)).txHash).toBe(repl!.txHash)
    // Neither waiting nor replacing counts as a failed attempt (failures would park the later
    // transfer for the long re-check once its retries were used up).
    expect((await withdrawal(first.withdrawalId)).retryCount).toBe(0)
    expect((await transfer(second.transferId)).failures).toBe(0)

    // The next block takes the replacement and the later transfer; both settle without waiting
    // for any ten-minute re-check (the clock moves by a few seconds only).
    await devnet.mine(1)
    await until(
      async () =>
        (await withdrawal(first.withdrawalId)).status === 'completed' &&
        (await withdrawal(second.withdrawalId)).status === 'completed',
      2_000,
      10,
    )
    expect((await signedTxs(first.transferId)).map((x) => [x.seq, x.status])).toEqual([
      [0, 'replaced'],
      [1, 'mined'],
    ])
    expect((await withdrawal(first.withdrawalId)).txHash).toBe(repl!.txHash)
    expect(await c.getReceipt(orig!.txHash as Hex)).toBeNull()
    // The replaced transaction can never be mined now.
    await expect(c.broadcast(orig!.raw as Hex)).rejects.toMatchObject({ code: 'NONCE_TOO_LOW' })

    // Paid once each, two transactions from the address, the ledger equal to the chain.
    expect(await c.balanceOf(to1, 'avax')).toBe(AVAX / 2n)
    expect(await c.balanceOf(to2, 'avax')).toBe(AVAX / 4n)
    expect(await c.getNonce(address, 'latest')).toBe(nonceBefore + 2)
    expect(await balanceOf(t, user.id, 'avax')).toBe(walletBefore - AVAX / 2n - AVAX / 4n - 2n * FEE)
    await devnet.setAutomine(true)
    await expectConsistent(t)
  })

  it('settles with the first transaction when that one is mined after all, and never pays twice', async () => {
    const { user, address } = await warmUser(13)
    const c = chain()
    const devnet = c.devnet!
    const nonceBefore = await c.getNonce(address, 'latest')
    const walletBefore = await balanceOf(t, user.id, 'avax')

    await devnet.setAutomine(false)
    const to = freshAddress()
    const { withdrawalId, transferId } = await withdraw(user, 0.5, to)
    await until(async () => (await transfer(transferId)).status === 'sent', 1_000)

    // The replacement is stored, then the worker dies before broadcasting it...
    let crashed = false
    t.crash.hook = (at, id) => {
      if (at === 'after-replace' && id === transferId && !crashed) {
        crashed = true
        throw new SimulatedCrash(at)
      }
    }
    await until(async () => crashed, 20_000)
    t.crash.hook = undefined
    const [orig, repl] = await signedTxs(transferId)
    expect(repl).toBeDefined()
    expect((await transfer(transferId)).txHash).toBe(repl!.txHash)

    // ...and the chain mines the first one.
    await devnet.mine(1)
    expect(await c.getReceipt(orig!.txHash as Hex)).not.toBeNull()
    await settleAll(t)
    expect((await signedTxs(transferId)).map((x) => [x.seq, x.status])).toEqual([
      [0, 'mined'],
      [1, 'replaced'],
    ])
    expect(await withdrawal(withdrawalId)).toMatchObject({ status: 'completed', txHash: orig!.txHash })
    expect((await transfer(transferId)).txHash).toBe(orig!.txHash)
    await expect(c.broadcast(repl!.raw as Hex)).rejects.toMatchObject({ code: 'NONCE_TOO_LOW' })
    expect(await c.balanceOf(to, 'avax')).toBe(AVAX / 2n)
    expect(await c.getNonce(address, 'latest')).toBe(nonceBefore + 1)
    expect(await balanceOf(t, user.id, 'avax')).toBe(walletBefore - AVAX / 2n - FEE)
    await devnet.setAutomine(true)
    await expectConsistent(t)
  })
})

describe('a shutdown with a send in flight', () => {
  it('leaves the stored transaction to the next start, which completes it exactly once', async () => {
    const { user, address } = await warmUser(14)
    const c = chain()
    const devnet = c.devnet!
    const sender = t.app.services.outgoing
    const jobs = t.app.services.jobs
    const nonceBefore = await c.getNonce(address, 'latest')
    const walletBefore = await balanceOf(t, user.id, 'avax')

    await devnet.setAutomine(false)
    const to = freshAddress()
    const { withdrawalId, transferId } = await withdraw(user, 0.5, to)
    // The worker loop runs; right after the broadcast (signed, not yet mined) the process is
    // asked to stop.
    let stopping: Promise<void> | undefined
    t.crash.hook = (at, id) => {
      if (at === 'after-broadcast' && id === transferId && !stopping) stopping = jobs.stop()
    }
    jobs.start(20)
    try {
      await waitFor(async () => stopping !== undefined)
    } finally {
      await (stopping ?? jobs.stop())
    }
    t.crash.hook = undefined

    // Stopped cleanly: the signed transaction is stored and broadcast, nothing runs, its next
    // check is queued, nothing is settled or mined yet.
    const stored = await transfer(transferId)
    expect(stored).toMatchObject({ status: 'sent', failures: 0 })
    expect(stored.raw).toMatch(/^0x/)
    const running = await db().selectFrom('jobs').select('id').where('status', '=', 'running').execute()
    expect(running).toEqual([])
    const next = await db()
      .selectFrom('jobs')
      .select(['status', 'runAt'])
      .where('kind', '=', 'outgoing.send')
      .where('dedupeKey', '=', `outgoing.send:${transferId}:${stored.wakeSeq}`)
      .executeTakeFirstOrThrow()
    expect(next.status).toBe('queued')
    expect(await c.getReceipt(stored.txHash as Hex)).toBeNull()
    // (its `processing` report may still be queued: it runs after the restart)
    expect((await withdrawal(withdrawalId)).status).not.toBe('completed')

    // The chain moves on while the process is down; then it starts again, and runs until the
    // withdrawal is completed and nothing is left to run (the completion's mail is a job of its
    // own, queued by the report that completes the withdrawal).
    await devnet.mine(1)
    t.clock.advance(sender.options.pendingRecheckMs)
    // (its check is due at the restart)
    expect(next.runAt.getTime()).toBeLessThanOrEqual(t.clock.now().getTime())
    jobs.start(20)
    try {
      await waitFor(async () => (await withdrawal(withdrawalId)).status === 'completed' && (await jobsIdle()))
    } finally {
      await jobs.stop()
    }
    expect(await withdrawal(withdrawalId)).toMatchObject({ status: 'completed', txHash: stored.txHash })
    expect(await c.balanceOf(to, 'avax')).toBe(AVAX / 2n)
    expect(await c.getNonce(address, 'latest')).toBe(nonceBefore + 1)
    expect(await balanceOf(t, user.id, 'avax')).toBe(walletBefore - AVAX / 2n - FEE)
    const mails = await db()
      .selectFrom('mails')
      .select('id')
      .where('toAddress', '=', user.email)
      .where('kind', '=', 'withdrawal_completed')
      .execute()
    // (one for the warm-up withdrawal, one for this one)
    expect(mails).toHaveLength(2)
    await devnet.setAutomine(true)
    await expectConsistent(t)
  })
})
