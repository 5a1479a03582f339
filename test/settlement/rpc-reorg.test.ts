// A 2-block reorganisation on the real devnet (evm_snapshot, a deposit, a block on it, evm_revert,
// another deposit from the same key at the same nonce, blocks on it), seen by the app through the
// JSON-RPC proxy with CONFIRMATIONS=3: only the deposit that survived is credited, once, and no
// alarm is raised (the replaced blocks never reached the confirmed head).
import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../helpers/factories.ts'
import { openProxiedApp, type ProxiedApp } from '../helpers/proxied-app.ts'
import { addressOf, balanceOf, depositsOf, expectSettled, pay, round, USDC, until } from './faults-support.ts'

let w: ProxiedApp
let outsider: { address: Hex; privateKey: Hex }
beforeAll(async () => {
  w = await openProxiedApp({ env: { CONFIRMATIONS: '3' } })
  outsider = w.node.devnet.accounts[0]!
  await w.node.devnet.fund(outsider.address, 'usdc', 1_000n * USDC)
})
afterAll(() => w?.close())

describe('a 2-block reorganisation', () => {
  it('credits only the deposit that survived', { timeout: 120_000 }, async () => {
    const user = await createUser(w.t)
    const address = await addressOf(w, user)
    // the watcher is at the head before the fork
    await w.node.devnet.mine(3)
    await until(
      w,
      async () =>
        (await w.t.app.services.settlement.watcher.scanNow()).cursor === (await w.node.blockNumber()) - 2n,
    )
    const fork = await w.node.blockNumber()

    const snapshot = await w.node.devnet.snapshot()
    const doomed = await pay(w, outsider, address, 'usdc', 4n * USDC)
    await w.node.devnet.mine(1)
    const doomedBlock = (await w.node.getReceipt(doomed.hash))!.blockNumber
    const doomedHashes = [await w.node.getBlock(fork + 1n), await w.node.getBlock(fork + 2n)].map(
      (b) => b!.hash,
    )
    for (let i = 0; i < 3; i++) await round(w)
    expect(await balanceOf(w, user.id, 'usdc')).toBe(0n)

    // the chain drops both blocks; the same key pays another amount at the same nonce
    expect(await w.node.devnet.revert(snapshot)).toBe(true)
    // for a moment the head is two blocks lower than it was
    for (let i = 0; i < 2; i++) await round(w)
    const kept = await pay(w, outsider, address, 'usdc', 6n * USDC)
    expect(kept.nonce).toBe(doomed.nonce)
    await w.node.devnet.mine(3)
    expect((await w.node.getReceipt(kept.hash))!.blockNumber).toBe(doomedBlock)
    expect((await w.node.getBlock(fork + 1n))!.hash).not.toBe(doomedHashes[0])
    expect((await w.node.getBlock(fork + 2n))!.hash).not.toBe(doomedHashes[1])
    expect(await w.node.getReceipt(doomed.hash)).toBeNull()

    await until(w, async () => (await balanceOf(w, user.id, 'usdc')) === 6n * USDC)
    for (let i = 0; i < 3; i++) await round(w)
    expect(await balanceOf(w, user.id, 'usdc')).toBe(6n * USDC)
    const deposits = await depositsOf(w, user.id, 'usdc')
    expect(deposits.map((d) => [d.amount, d.txHash?.toLowerCase()])).toEqual([
      ['6000000', kept.hash.toLowerCase()],
    ])
    await expectSettled(w)
  })
})
