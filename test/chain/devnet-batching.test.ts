// Transactions sent to the devnet at the same time share a block (each block costs the node memory
// for as long as it runs), each send still answers once its transaction is mined, a send the node
// refuses fails alone, and a restart rebuilds the shared blocks with the same hashes.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { openDevnet } from '../../src/platform/chain/devnet.ts'
import { fileJournal } from '../../src/platform/chain/journal.ts'
import type { ChainAdapter } from '../../src/platform/chain/types.ts'

const dir = mkdtempSync(join(tmpdir(), 'wp-batch-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function hashes(chain: ChainAdapter): Promise<string[]> {
  const head = await chain.blockNumber()
  const out: string[] = []
  for (let n = 0n; n <= head; n++) out.push((await chain.getBlock(n))!.hash)
  return out
}

describe('devnet: sends that wait together are mined together', () => {
  it('shares blocks, answers each send once mined, and replays to the same hashes', {
    timeout: 90_000,
  }, async () => {
    const journal = fileJournal(join(dir, 'journal.jsonl'))
    const warnings: string[] = []
    const onWarning = (m: string) => warnings.push(m)
    const first = await openDevnet({ ...builtinCoinsConfig(), journal, onWarning })
    const payers = first.devnet!.accounts.slice(0, 8)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const start = await first.blockNumber()

    // one send alone: its own block, at once (automine as before)
    const alone = await first.signTransfer(payers[0]!.privateKey, {
      coin: 'avax',
      to,
      amount: 1n,
      nonce: await first.getNonce(payers[0]!.address),
    })
    await first.broadcast(alone.raw)
    expect(await first.blockNumber()).toBe(start + 1n)

    // eight at once, and one the node refuses (a nonce already used)
    const signed = await Promise.all(
      payers.map(async (p, i) =>
        first.signTransfer(p.privateKey, {
          coin: 'avax',
          to,
          amount: BigInt(10 + i),
          nonce: await first.getNonce(p.address),
        }),
      ),
    )
    const stale = await first.signTransfer(payers[0]!.privateKey, {
      coin: 'avax',
      to,
      amount: 5n,
      nonce: alone.nonce,
    })
    const results = await Promise.allSettled([
      ...signed.map(async (s) => {
        await first.broadcast(s.raw)
        // mined by the time the send answers
        return first.getReceipt(s.hash)
      }),
      first.broadcast(stale.raw),
      first.devnet!.fund(to, 'usdc', 3_000_000n),
    ])
    for (const r of results.slice(0, signed.length)) {
      expect(r.status).toBe('fulfilled')
      expect(
        (r as PromiseFulfilledResult<Awaited<ReturnType<ChainAdapter['getReceipt']>>>).value?.status,
      ).toBe('success')
    }
    expect(results[signed.length]!.status).toBe('rejected')
    expect(results[signed.length + 1]!.status).toBe('fulfilled')
    const head = await first.blockNumber()
    // fewer blocks than transactions: the first send went alone, the rest waited together
    expect(head - start - 1n).toBeGreaterThanOrEqual(1n)
    expect(head - start - 1n).toBeLessThan(BigInt(signed.length + 1))
    expect(await first.balances(to)).toEqual({ avax: 1n + 10n * 8n + 28n, usdc: 3_000_000n })
    // automine is back on: the next send is mined at once, alone
    await first.devnet!.fund(to, 'usdc', 1n)
    expect(await first.blockNumber()).toBe(head + 1n)
    const before = await hashes(first)
    await first.close()

    const again = await openDevnet({ ...builtinCoinsConfig(), journal, onWarning })
    try {
      expect(await hashes(again)).toEqual(before)
      expect(await again.balances(to)).toEqual({ avax: 109n, usdc: 3_000_001n })
    } finally {
      await again.close()
    }
    expect(warnings).toEqual([])
  })
})
