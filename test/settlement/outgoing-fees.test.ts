// The fee policy of outgoing transfers on the dev chain, with a maximum of 50 gwei per gas for
// AVAX in the coins configuration: fees come from the node's fee history; in a gas spike (the next
// block's base fee set on the real chain engine) a send waits instead of paying, says so on the
// admin endpoints and in /metrics, and goes once the fee falls; a stuck transaction is replaced at
// its nonce by at least +12.5 % max fee and +10 % tip, on its schedule, and never above the
// maximum. What the user is charged never changes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Hex, parseGwei, parseTransaction } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { priceNow, underCap } from '../../src/modules/settlement/outgoing/fees.ts'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { feesFromHistory } from '../../src/platform/chain/fee-history.ts'
import { adminEnv, createAdmin, expectOk, runId } from '../admin/helpers.ts'
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

const CAP = parseGwei('50')
const FEE = AVAX / 1000n
const run = runId()
let t: TestApp
let admin: TestUser
let dir: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wp-fees-'))
  const config = builtinCoinsConfig()
  const coins = config.coins.map((c) => (c.reference === 'avax' ? { ...c, maxFeePerGasGwei: '50' } : c))
  writeFileSync(join(dir, 'coins.json'), JSON.stringify({ ...config, coins }))
  t = await createTestApp({ env: { ...adminEnv(run), COINS_FILE: join(dir, 'coins.json') } })
  admin = await createAdmin(t, run)
})
afterEach(async () => {
  await t.app.services.chain.devnet!.setAutomine(true)
})
afterAll(async () => {
  await t?.close()
  rmSync(dir, { recursive: true, force: true })
})

const chain = () => t.app.services.chain
const devnet = () => chain().devnet!
const db = () => t.database.db
const transfer = (id: string) =>
  db().selectFrom('outgoingTransfers').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
const signedTxs = (id: string) =>
  db()
    .selectFrom('outgoingTransactions')
    .select(['seq', 'txHash', 'raw', 'status'])
    .where('transferId', '=', id)
    .orderBy('seq')
    .execute()
const adminView = async (id: string) =>
  expectOk(await t.req({ method: 'GET', url: `/v1/admin/transfers/${id}`, token: admin.token }))
const metric = async (name: string) => {
  const res = await t.req({ method: 'GET', url: '/metrics' })
  return res.body.split('\n').filter((l) => l.startsWith(name))
}

/** Mines empty blocks until the base fee is back near its floor (every test starts calm). */
const calm = () => devnet().mine(100)

/** A user with 5 AVAX whose address holds platform gas already (a first withdrawal brought it). */
async function warmUser(payerIndex: number) {
  const user = await createUser(t)
  await fundUser(t, payerIndex, user, 'avax', 5n * AVAX)
  await withdrawAvax(t, user, 0.01, freshAddress())
  await settleAll(t)
  return { user, address: (await walletAddress(t, user)).toLowerCase() }
}

/** Runs the queue until `cond` holds, moving the clock `stepMs` between rounds. */
async function until(cond: () => Promise<boolean>, stepMs: number, rounds = 40) {
  for (let i = 0; i < rounds; i++) {
    await t.drain()
    if (await cond()) return
    t.clock.advance(stepMs)
  }
  throw new Error('condition not reached')
}

describe('fees from the fee history', () => {
  it('takes the next base fee and the median tip of the blocks that held transactions', () => {
    const history = {
      baseFeePerGas: [10n, 12n, 11n, 9n, 8n],
      gasUsedRatio: [0.5, 0, 0.9, 0.2],
      reward: [[3n], [0n], [7n], [5n]],
    }
    expect(feesFromHistory(history, 1n)).toEqual({
      type: 'eip1559',
      baseFeePerGas: 8n,
      maxPriorityFeePerGas: 5n,
      maxFeePerGas: 2n * 8n + 5n,
    })
    // empty blocks tell no tip: the fallback
    expect(feesFromHistory({ baseFeePerGas: [4n, 3n], gasUsedRatio: [0], reward: [[0n]] }, 2n)).toMatchObject(
      {
        maxPriorityFeePerGas: 2n,
        maxFeePerGas: 8n,
      },
    )
    // no base fee: not an EIP-1559 chain
    expect(feesFromHistory({ baseFeePerGas: [0n, 0n], gasUsedRatio: [0.3] }, 2n)).toBeUndefined()
  })

  it('signs under a maximum, and waits when the next block asks more than it', () => {
    const fees = {
      type: 'eip1559' as const,
      maxFeePerGas: 210n,
      maxPriorityFeePerGas: 10n,
      baseFeePerGas: 100n,
    }
    expect(priceNow(fees)).toBe(110n)
    expect(underCap(fees, undefined)).toBe(fees)
    expect(underCap(fees, 150n)).toEqual({ ...fees, maxFeePerGas: 150n })
    expect(underCap(fees, 109n)).toBeUndefined()
    expect(underCap({ type: 'legacy', gasPrice: 60n }, 50n)).toBeUndefined()
  })
})

describe('a gas spike', () => {
  it('makes a send wait above the coin maximum, visibly, and go once the fee falls', async () => {
    await calm()
    const { user, address } = await warmUser(10)
    const nonceBefore = await chain().getNonce(address, 'latest')
    const walletBefore = await balanceOf(t, user.id, 'avax')

    // The next block's base fee jumps to 200 gwei; the one after asks 175 gwei.
    await devnet().setNextBaseFee(parseGwei('200'))
    await devnet().mine(1)
    const to = freshAddress()
    const { transferId } = await withdrawAvax(t, user, 0.5, to)
    await t.drain()
    const waiting = await transfer(transferId)
    expect(waiting.status).toBe('queued')
    expect(waiting.waitingForFee).toMatchObject({ step: 'sign', maxFeePerGas: CAP.toString() })
    expect(BigInt(waiting.waitingForFee!.feePerGas)).toBeGreaterThan(CAP)
    expect(await signedTxs(transferId)).toEqual([])
    expect((await adminView(transferId)).waitingForFee).toMatchObject({
      step: 'sign',
      maxFeePerGas: CAP.toString(),
    })
    expect(await metric('workpay_outgoing_waiting_for_fee{')).toEqual([
      'workpay_outgoing_waiting_for_fee{coin="avax",step="sign"} 1',
    ])

    // Looked at again while the fee is still high: it keeps waiting, since the same moment.
    t.clock.advance(t.app.services.outgoing.options.feeRecheckMs)
    await t.drain()
    expect((await transfer(transferId)).waitingForFee?.since).toBe(waiting.waitingForFee!.since)
    expect(await chain().getNonce(address, 'latest')).toBe(nonceBefore)

    // Empty blocks bring the base fee down (12.5 % a block): the send goes at its next look.
    await devnet().mine(20)
    await until(async () => (await transfer(transferId)).status === 'completed', 5_000)
    const done = await transfer(transferId)
    expect(done.waitingForFee).toBeNull()
    const [sent] = await signedTxs(transferId)
    expect(parseTransaction(sent!.raw as Hex).maxFeePerGas! <= CAP).toBe(true)
    expect((await adminView(transferId)).waitingForFee).toBeNull()
    expect(await metric('workpay_outgoing_waiting_for_fee{')).toEqual([])
    // Paid once, and the user is charged what a withdrawal always costs.
    expect(await chain().balanceOf(to, 'avax')).toBe(AVAX / 2n)
    expect(await chain().getNonce(address, 'latest')).toBe(nonceBefore + 1)
    expect(await balanceOf(t, user.id, 'avax')).toBe(walletBefore - AVAX / 2n - FEE)
    await expectConsistent(t)
  })
})

describe('a stuck transaction', () => {
  it('is replaced on its schedule by at least +12.5 % max fee and +10 % tip, at its nonce', async () => {
    await calm()
    const { user, address } = await warmUser(11)
    const stuckAfterMs = t.app.services.outgoing.options.stuckAfterMs
    const nonceBefore = await chain().getNonce(address, 'latest')
    const walletBefore = await balanceOf(t, user.id, 'avax')
    await devnet().setAutomine(false)
    const to = freshAddress()
    const { transferId } = await withdrawAvax(t, user, 0.25, to)
    await until(async () => (await transfer(transferId)).status === 'sent', 1_000)
    const [first] = await signedTxs(transferId)
    const a = parseTransaction(first!.raw as Hex)

    // The next block asks twice what the transaction offers: it stays in the mempool.
    await devnet().setNextBaseFee(a.maxFeePerGas! * 2n)
    await devnet().mine(1)
    expect(await chain().getNonce(address, 'latest')).toBe(nonceBefore)

    // Not replaced before its time...
    t.clock.advance(stuckAfterMs - 10_000)
    await t.drain()
    expect(await signedTxs(transferId)).toHaveLength(1)
    // ...and replaced once it has come.
    await until(async () => (await signedTxs(transferId)).length === 2, 5_000, 5)
    const [, second] = await signedTxs(transferId)
    const b = parseTransaction(second!.raw as Hex)
    expect(b.nonce).toBe(a.nonce)
    expect(b.to).toBe(a.to)
    expect(b.value).toBe(a.value)
    expect(b.maxFeePerGas! * 1000n >= a.maxFeePerGas! * 1125n).toBe(true)
    expect(b.maxPriorityFeePerGas! * 1000n >= a.maxPriorityFeePerGas! * 1100n).toBe(true)
    expect(b.maxFeePerGas! <= CAP).toBe(true)
    expect((await transfer(transferId)).waitingForFee).toBeNull()

    // The next block takes the replacement; the transfer settles with it, paid once.
    await devnet().mine(1)
    await until(async () => (await transfer(transferId)).status === 'completed', 2_000, 10)
    expect((await transfer(transferId)).txHash).toBe(second!.txHash)
    expect(await chain().balanceOf(to, 'avax')).toBe(AVAX / 4n)
    expect(await chain().getNonce(address, 'latest')).toBe(nonceBefore + 1)
    expect(await balanceOf(t, user.id, 'avax')).toBe(walletBefore - AVAX / 4n - FEE)
    await devnet().setAutomine(true)
    await expectConsistent(t)
  })

  it('is not replaced above the coin maximum: it stays pending, visibly, and lands once the fee falls', async () => {
    await calm()
    const { user, address } = await warmUser(12)
    const nonceBefore = await chain().getNonce(address, 'latest')
    const walletBefore = await balanceOf(t, user.id, 'avax')
    await devnet().setAutomine(false)
    const to = freshAddress()
    const { transferId } = await withdrawAvax(t, user, 0.25, to)
    await until(async () => (await transfer(transferId)).status === 'sent', 1_000)
    const [first] = await signedTxs(transferId)

    // A spike to 200 gwei: a replacement would have to pay far more than the maximum.
    await devnet().setNextBaseFee(parseGwei('200'))
    await devnet().mine(1)
    t.clock.advance(t.app.services.outgoing.options.stuckAfterMs)
    await t.drain()
    expect(await signedTxs(transferId)).toHaveLength(1)
    const waiting = await transfer(transferId)
    expect(waiting.status).toBe('sent')
    expect(waiting.waitingForFee).toMatchObject({ step: 'replace', maxFeePerGas: CAP.toString() })
    expect((await adminView(transferId)).waitingForFee).toMatchObject({ step: 'replace' })
    expect(await metric('workpay_outgoing_waiting_for_fee{')).toEqual([
      'workpay_outgoing_waiting_for_fee{coin="avax",step="replace"} 1',
    ])

    // The base fee falls back under what the first transaction offers: it is mined as it was.
    await devnet().mine(80)
    await until(async () => (await transfer(transferId)).status === 'completed', 5_000, 10)
    const done = await transfer(transferId)
    expect(done.txHash).toBe(first!.txHash)
    expect(done.waitingForFee).toBeNull()
    expect(await chain().balanceOf(to, 'avax')).toBe(AVAX / 4n)
    expect(await chain().getNonce(address, 'latest')).toBe(nonceBefore + 1)
    expect(await balanceOf(t, user.id, 'avax')).toBe(walletBefore - AVAX / 4n - FEE)
    await devnet().setAutomine(true)
    await expectConsistent(t)
  })
})
