// A stuck transaction in the middle of an address's pipeline, on the dev chain: the middle
// transfer was signed at the fees of a calm chain, then a gas spike (the next block's base fee
// raised above what it offers) leaves it in the mempool while the transfers signed after it, at
// the spike's fees, queue behind its nonce. Past `stuckAfterMs` it alone is replaced at its nonce
// with higher fees; the replacement and the queue behind it land once each, and each transfer's
// gas hold is posted for what its mined transaction paid (the replaced one's hold voided).
import { type Hex, parseTransaction } from 'viem'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
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
  // One top-up brings the gas of every send below, at the spike's fees too.
  t.app.services.outgoing.options.topUpFactor = 100n
})
afterAll(async () => {
  await t?.close()
})

const chain = () => t.app.services.chain
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
const gasHolds = (id: string) =>
  db()
    .selectFrom('ledgerHolds')
    .select(['amount', 'status', 'postedAmount'])
    .where('idempotencyKey', 'like', `outgoing:${id}:gas-hold:%`)
    .orderBy('createdAt')
    .execute()
const withdrawalStatus = async (id: string) =>
  (await db().selectFrom('withdrawals').select('status').where('id', '=', id).executeTakeFirstOrThrow())
    .status

/** Runs the queue until `cond` holds, moving the clock `stepMs` between rounds (no block is mined). */
async function until(cond: () => Promise<boolean>, stepMs: number, rounds = 40) {
  for (let i = 0; i < rounds; i++) {
    await t.drain()
    if (await cond()) return
    t.clock.advance(stepMs)
  }
  throw new Error('condition not reached')
}

it('replaces the stuck middle transaction at its nonce; the queue behind it lands once, gas booked right', {
  timeout: 120_000,
}, async () => {
  const c = chain()
  const devnet = c.devnet!
  const user = await createUser(t)
  await fundUser(t, 10, user, 'avax', 5n * AVAX)
  await withdrawAvax(t, user, 0.01, freshAddress())
  await settleAll(t)
  const address = (await walletAddress(t, user)).toLowerCase()
  const base = await c.getNonce(address, 'latest')
  const walletBefore = await balanceOf(t, user.id, 'avax')
  const stuckAfterMs = t.app.services.outgoing.options.stuckAfterMs

  await devnet.setAutomine(false)
  try {
    const targets = Array.from({ length: 4 }, () => freshAddress())
    // The first lands on a calm chain.
    const first = await withdrawAvax(t, user, 0.1, targets[0]!)
    await t.drain()
    await devnet.mine(1)
    await until(async () => (await withdrawalStatus(first.withdrawalId)) === 'completed', 2_000)

    // The middle one is signed at the calm chain's fees; then a spike: the next block's base fee
    // four times what it offers. The block passes it by.
    const middle = await withdrawAvax(t, user, 0.1, targets[1]!)
    await t.drain()
    const [original] = await signedTxs(middle.transferId)
    const offered = parseTransaction(original!.raw as Hex).maxFeePerGas!
    await devnet.setNextBaseFee(offered * 4n)
    await devnet.mine(1)
    expect(await c.getReceipt(original!.txHash as Hex)).toBeNull()

    // Two more, signed at the spike's fees, queue behind the middle nonce.
    const later: { withdrawalId: string; transferId: string }[] = []
    for (const to of targets.slice(2)) {
      later.push(await withdrawAvax(t, user, 0.1, to))
      await t.drain()
    }
    const all = [first, middle, ...later]
    for (const [i, m] of all.entries()) expect(Number((await transfer(m.transferId)).nonce)).toBe(base + i)
    for (const m of later) {
      expect((await transfer(m.transferId)).status).toBe('sent')
      expect(parseTransaction((await signedTxs(m.transferId))[0]!.raw as Hex).maxFeePerGas! > offered).toBe(
        true,
      )
    }
    expect(await c.getNonce(address, 'latest')).toBe(base + 1)
    // (the node holds them, unmined: the middle one under the base fee, the later ones behind it)
    for (const m of [middle, ...later]) {
      const hash = (await transfer(m.transferId)).txHash as Hex
      expect(await c.client.getTransaction({ hash })).toMatchObject({ hash, blockNumber: null })
    }

    // Past the stuck time (the clock only: no block is mined meanwhile), the middle one alone is
    // replaced at its nonce, with higher fees.
    await until(
      async () => (await signedTxs(middle.transferId)).length === 2,
      5_000,
      Math.ceil(stuckAfterMs / 5_000) + 10,
    )
    for (const m of later) expect(await signedTxs(m.transferId)).toHaveLength(1)
    const [orig, repl] = await signedTxs(middle.transferId)
    const a = parseTransaction(orig!.raw as Hex)
    const b = parseTransaction(repl!.raw as Hex)
    expect(b.nonce).toBe(a.nonce)
    expect(b.to).toBe(a.to)
    expect(b.value).toBe(a.value)
    expect(b.maxFeePerGas! >= (a.maxFeePerGas! * 1125n) / 1000n).toBe(true)
    expect(b.maxPriorityFeePerGas! >= (a.maxPriorityFeePerGas! * 1100n) / 1000n).toBe(true)
    // Its gas reservation grew with it: the first hold voided, one for the replacement's fees.
    const holds = await gasHolds(middle.transferId)
    expect(holds.map((h) => h.status)).toEqual(['voided', 'pending'])
    expect(BigInt(holds[1]!.amount)).toBe(b.gas! * b.maxFeePerGas!)

    // The next block takes the replacement and the two behind it.
    await devnet.mine(1)
    await until(
      async () =>
        (await Promise.all(all.map((m) => withdrawalStatus(m.withdrawalId)))).every((s) => s === 'completed'),
      2_000,
    )
    expect((await signedTxs(middle.transferId)).map((x) => [x.seq, x.status])).toEqual([
      [0, 'replaced'],
      [1, 'mined'],
    ])
    expect(await c.getReceipt(orig!.txHash as Hex)).toBeNull()
    await expect(c.broadcast(orig!.raw as Hex)).rejects.toMatchObject({ code: 'NONCE_TOO_LOW' })

    // Each lands once, in nonce order; each transfer's gas hold posted for what its transaction paid.
    let lastBlock = -1n
    for (const m of all) {
      const row = await transfer(m.transferId)
      expect(row.status).toBe('completed')
      const receipt = (await c.getReceipt(row.txHash as Hex))!
      expect(receipt.status).toBe('success')
      expect(receipt.blockNumber >= lastBlock).toBe(true)
      lastBlock = receipt.blockNumber
      const posted = (await gasHolds(m.transferId)).filter((h) => h.status === 'posted')
      expect(posted).toHaveLength(1)
      expect(BigInt(posted[0]!.postedAmount)).toBe(receipt.fee)
    }
    expect((await transfer(middle.transferId)).txHash).toBe(repl!.txHash)
    expect(await c.getNonce(address, 'latest')).toBe(base + 4)
    for (const to of targets) expect(await c.balanceOf(to, 'avax')).toBe(AVAX / 10n)
    expect(await balanceOf(t, user.id, 'avax')).toBe(walletBefore - 4n * (AVAX / 10n + FEE))
  } finally {
    await devnet.setAutomine(true)
  }
  await expectConsistent(t)
})
