// A restarted devnet is the same chain, not merely the same balances: every block comes back with
// its hash (genesis at a fixed date, bootstrap blocks at fixed times, journaled blocks at their
// recorded times), including blocks mined while automine was off and a reverted transaction; and
// its clock then resumes from the wall clock.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { openDevnet } from '../../src/platform/chain/devnet.ts'
import { fileJournal } from '../../src/platform/chain/journal.ts'
import type { ChainAdapter } from '../../src/platform/chain/types.ts'

const dir = mkdtempSync(join(tmpdir(), 'wp-replay-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function hashes(chain: ChainAdapter): Promise<string[]> {
  const head = await chain.blockNumber()
  const out: string[] = []
  for (let n = 0n; n <= head; n++) out.push((await chain.getBlock(n))!.hash)
  return out
}

const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000))

describe('devnet replay', () => {
  it('rebuilds every block with the same hash, restart after restart', { timeout: 90_000 }, async () => {
    const path = join(dir, 'journal.jsonl')
    const journal = fileJournal(path)
    const warnings: string[] = []
    const onWarning = (m: string) => warnings.push(m)
    const to = privateKeyToAccount(generatePrivateKey()).address

    const first = await openDevnet({ ...builtinCoinsConfig(), journal, onWarning })
    const payer = first.devnet!.accounts[4]!
    await first.devnet!.fund(to, 'avax', 10n ** 18n)
    await first.devnet!.fund(to, 'usdc', 5_000_000n)
    const native = await first.signTransfer(payer.privateKey, {
      coin: 'avax',
      to: first.treasury.address,
      amount: 1000n,
      nonce: await first.getNonce(payer.address),
    })
    await first.broadcast(native.raw)
    // a block mined on demand, with a transaction that waited in the mempool
    await first.devnet!.setAutomine(false)
    const pending = await first.signTransfer(payer.privateKey, {
      coin: 'avax',
      to,
      amount: 7n,
      nonce: native.nonce + 1,
    })
    await first.broadcast(pending.raw)
    await new Promise((r) => setTimeout(r, 1100))
    await first.devnet!.mine(3)
    await first.devnet!.setAutomine(true)
    // a reverted transfer (more tokens than the sender has) is mined all the same
    const reverted = await first.signTransfer(payer.privateKey, {
      coin: 'usdc',
      to,
      amount: 10n ** 30n,
      nonce: pending.nonce + 1,
      gas: 80_000n,
    })
    await first.broadcast(reverted.raw).catch(() => {})
    expect((await first.getReceipt(reverted.hash))?.status).toBe('reverted')
    const before = await hashes(first)
    let lastTime = (await first.getBlock(await first.blockNumber()))!.timestamp
    await first.close()
    expect(readFileSync(path, 'utf8')).toContain('evm_setNextBlockTimestamp')

    for (let restart = 0; restart < 2; restart++) {
      // the wall clock gets ahead of the last block (blocks mined in a burst run ahead of it)
      while (nowSeconds() < lastTime + 3n) await new Promise((r) => setTimeout(r, 200))
      const again = await openDevnet({ ...builtinCoinsConfig(), journal, onWarning })
      try {
        expect(await hashes(again)).toEqual(before)
        expect((await again.getReceipt(pending.hash))?.status).toBe('success')
        expect((await again.getReceipt(reverted.hash))?.status).toBe('reverted')
        expect(await again.balances(to)).toEqual({ avax: 10n ** 18n + 7n, usdc: 5_000_000n })
        // the next block is stamped with the time of now, not right after the last replayed block
        await again.devnet!.mine(1)
        const next = (await again.getBlock(await again.blockNumber()))!
        expect(next.timestamp).toBeGreaterThanOrEqual(nowSeconds() - 1n)
        expect(next.timestamp).toBeLessThanOrEqual(nowSeconds() + 1n)
        before.push(next.hash)
        lastTime = next.timestamp
      } finally {
        await again.close()
      }
    }
    expect(warnings).toEqual([])
  })

  it('two devnets without a journal start from the same genesis and bootstrap blocks', async () => {
    const a = await openDevnet(builtinCoinsConfig())
    const ha = await hashes(a)
    await a.close()
    await new Promise((r) => setTimeout(r, 1100))
    const b = await openDevnet(builtinCoinsConfig())
    const hb = await hashes(b)
    await b.close()
    expect(hb).toEqual(ha)
    expect(ha.length).toBeGreaterThan(1)
  })
})
