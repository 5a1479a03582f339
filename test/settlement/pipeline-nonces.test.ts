// Pipelined nonces of one sending address on the dev chain: a wallet's transfers are signed and
// broadcast without waiting for each other's receipts, each at the address's next nonce, unique and
// without a gap; they land once each, in nonce order. A worker dying between the signature and the
// broadcast of the middle transfer leaves a gap on the node that a later run repairs with the very
// transaction it stored (never a new signature at another nonce).
import type { Hex } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { SimulatedCrash } from '../../src/modules/settlement/outgoing/types.ts'
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
  // One top-up brings the gas of every send below.
  t.app.services.outgoing.options.topUpFactor = 100n
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

const transfers = (ids: string[]) =>
  db()
    .selectFrom('outgoingTransfers')
    .select(['id', 'status', 'nonce', 'txHash', 'raw'])
    .where('id', 'in', ids)
    .execute()
const signedTxs = (ids: string[]) =>
  db()
    .selectFrom('outgoingTransactions')
    .select(['transferId', 'txHash', 'status'])
    .where('transferId', 'in', ids)
    .execute()
const withdrawalStatuses = async (ids: string[]) =>
  (await db().selectFrom('withdrawals').select('status').where('id', 'in', ids).execute()).map(
    (r) => r.status,
  )

/** A user whose address already holds platform gas (its first withdrawal brought a top-up). */
async function warmUser(payerIndex: number, avax: bigint) {
  const user = await createUser(t)
  await fundUser(t, payerIndex, user, 'avax', avax)
  await withdrawAvax(t, user, 0.01, freshAddress())
  await settleAll(t)
  return { user, address: (await walletAddress(t, user)).toLowerCase() }
}

/** Runs the queue until `cond` holds, moving the clock `stepMs` between rounds (and mining, if asked). */
async function until(
  cond: () => Promise<boolean>,
  stepMs: number,
  opts: { mine?: boolean; rounds?: number } = {},
) {
  for (let i = 0; i < (opts.rounds ?? 40); i++) {
    await t.drain()
    if (await cond()) return
    if (opts.mine) await chain().devnet!.mine(1)
    t.clock.advance(stepMs)
  }
  throw new Error('condition not reached')
}

/** Each transfer's transaction mined once: one receipt, one stored transaction, in nonce order. */
async function expectLandedOnceInNonceOrder(transferIds: string[], base: number) {
  const rows = (await transfers(transferIds)).sort((a, b) => Number(a.nonce) - Number(b.nonce))
  expect(rows.map((r) => r.status)).toEqual(transferIds.map(() => 'completed'))
  expect(rows.map((r) => Number(r.nonce))).toEqual(transferIds.map((_, i) => base + i))
  const stored = await signedTxs(transferIds)
  expect(stored).toHaveLength(transferIds.length)
  expect(stored.every((s) => s.status === 'mined')).toBe(true)
  let lastBlock = -1n
  for (const r of rows) {
    const receipt = await chain().getReceipt(r.txHash as Hex)
    expect(receipt?.status, `receipt of nonce ${r.nonce}`).toBe('success')
    expect(receipt!.blockNumber >= lastBlock).toBe(true)
    lastBlock = receipt!.blockNumber
  }
}

describe('pipelined nonces of one address', () => {
  it('signs and broadcasts twenty withdrawals at consecutive nonces before the first is mined; each lands once', {
    timeout: 120_000,
  }, async () => {
    const SENDS = 20
    const { user, address } = await warmUser(8, 5n * AVAX)
    const c = chain()
    const devnet = c.devnet!
    const base = await c.getNonce(address, 'latest')
    const walletBefore = await balanceOf(t, user.id, 'avax')

    // Blocks are held: nothing is mined until the test says so.
    await devnet.setAutomine(false)
    const targets = Array.from({ length: SENDS }, () => freshAddress())
    const made: { withdrawalId: string; transferId: string }[] = []
    for (const to of targets) made.push(await withdrawAvax(t, user, 0.1, to))
    const ids = made.map((m) => m.transferId)
    await t.drain()

    // All twenty signed and broadcast, none mined: nonces base..base+19, unique, no gap.
    const rows = await transfers(ids)
    expect(rows.map((r) => r.status)).toEqual(ids.map(() => 'sent'))
    const nonces = rows.map((r) => Number(r.nonce)).sort((a, b) => a - b)
    expect(nonces).toEqual(ids.map((_, i) => base + i))
    expect(await c.getNonce(address, 'latest')).toBe(base)
    expect(await c.getNonce(address, 'pending')).toBe(base + SENDS)
    const pending = await c.client.getBlock({ blockTag: 'pending' })
    expect(pending.transactions).toEqual(expect.arrayContaining(rows.map((r) => r.txHash as Hex)))
    for (const to of targets) expect(await c.balanceOf(to, 'avax')).toBe(0n)

    // One block takes them all; the next checks settle every one of them.
    await devnet.mine(1)
    await until(
      async () => (await withdrawalStatuses(made.map((m) => m.withdrawalId))).every((s) => s === 'completed'),
      2_000,
    )
    await expectLandedOnceInNonceOrder(ids, base)
    // The stored transactions are the ones broadcast before the block: nothing was signed again.
    expect((await transfers(ids)).map((r) => r.txHash).sort()).toEqual(rows.map((r) => r.txHash).sort())
    expect(await c.getNonce(address, 'latest')).toBe(base + SENDS)
    for (const to of targets) expect(await c.balanceOf(to, 'avax')).toBe(AVAX / 10n)
    expect(await balanceOf(t, user.id, 'avax')).toBe(walletBefore - BigInt(SENDS) * (AVAX / 10n + FEE))
    await devnet.setAutomine(true)
    await expectConsistent(t)
  })

  it('repairs the gap left by a crash between the middle transfer’s signature and its broadcast', {
    timeout: 120_000,
  }, async () => {
    const SENDS = 5
    const MIDDLE = 2
    const { user, address } = await warmUser(9, 3n * AVAX)
    const c = chain()
    const devnet = c.devnet!
    const base = await c.getNonce(address, 'latest')
    const walletBefore = await balanceOf(t, user.id, 'avax')

    await devnet.setAutomine(false)
    const targets = Array.from({ length: SENDS }, () => freshAddress())
    const made: { withdrawalId: string; transferId: string }[] = []
    let crashes = 0
    // One after the other, so that the nonces follow the order of the requests: the middle one
    // dies right after its signed transaction was stored, before it was broadcast.
    for (const [i, to] of targets.entries()) {
      const m = await withdrawAvax(t, user, 0.1, to)
      made.push(m)
      if (i === MIDDLE)
        t.crash.hook = (at, id) => {
          if (at === 'after-sign' && id === m.transferId && crashes === 0) {
            crashes++
            throw new SimulatedCrash(at)
          }
        }
      await t.drain()
    }
    expect(crashes).toBe(1)
    const ids = made.map((m) => m.transferId)
    const middle = ids[MIDDLE]!
    const after = await transfers(ids)
    const byId = new Map(after.map((r) => [r.id, r]))
    expect(ids.map((id) => Number(byId.get(id)!.nonce))).toEqual(ids.map((_, i) => base + i))
    expect(ids.map((id) => byId.get(id)!.status)).toEqual(['sent', 'sent', 'signed', 'sent', 'sent'])
    const crashed = byId.get(middle)!
    expect(crashed.raw).toMatch(/^0x/)

    // A gap on the node: the middle nonce was never broadcast, the ones after it wait behind it.
    expect(await c.client.getTransaction({ hash: crashed.txHash as Hex }).catch(() => null)).toBeNull()
    const later = ids.slice(MIDDLE + 1).map((id) => byId.get(id)!.txHash as Hex)
    for (const hash of later) expect(await c.client.getTransaction({ hash })).toMatchObject({ hash })
    await devnet.mine(1)
    expect(await c.getNonce(address, 'latest')).toBe(base + MIDDLE)
    for (const hash of later) expect(await c.getReceipt(hash)).toBeNull()

    // The next runs broadcast the stored transaction of the middle nonce: the gap closes and the
    // later ones land behind it.
    t.crash.hook = undefined
    await until(
      async () => (await withdrawalStatuses(made.map((m) => m.withdrawalId))).every((s) => s === 'completed'),
      2_000,
      { mine: true },
    )
    await expectLandedOnceInNonceOrder(ids, base)
    const done = (await transfers([middle]))[0]!
    expect(done.txHash).toBe(crashed.txHash)
    expect(done.raw).toBe(crashed.raw)
    expect(await c.getNonce(address, 'latest')).toBe(base + SENDS)
    for (const to of targets) expect(await c.balanceOf(to, 'avax')).toBe(AVAX / 10n)
    expect(await balanceOf(t, user.id, 'avax')).toBe(walletBefore - BigInt(SENDS) * (AVAX / 10n + FEE))
    await devnet.setAutomine(true)
    await expectConsistent(t)
  })
})
