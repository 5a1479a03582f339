// The live devnet EVM rebuilt from the compacted journal and swapped in while the devnet runs
// (both drivers): after a compaction of its own the devnet carries on on a new EVM with the same
// balances, nonces, token balances and head, the block hashes a reader saw unchanged (a reader
// following parents across the swap is never stopped), calls made during a swap answered, and a
// swap that fails (the journal cannot be read back) leaves the running EVM serving as before.
import { type Address, type Hash, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import type { Db } from '../../src/db/index.ts'
import { journalCompaction } from '../../src/modules/payment/module.ts'
import { dbJournal } from '../../src/modules/payment/repo.ts'
import { chainHistory } from '../../src/modules/settlement/chain-history.ts'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { openDevnet } from '../../src/platform/chain/devnet.ts'
import { isState } from '../../src/platform/chain/devnet-compaction.ts'
import type { ChainAdapter, DevnetJournal } from '../../src/platform/chain/types.ts'
import { openTestDatabase } from '../helpers/app.ts'

const fresh = () => privateKeyToAccount(generatePrivateKey()).address

async function rpc(url: string, method: string, params: unknown[] = []) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result?: unknown; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

/**
 * A reader as the deposit watcher is: follows the chain block by block from where it stopped,
 * checks that each block's parent is the block it read before, and keeps its cursor (a few blocks
 * behind the head) in the database, where the compaction reads it.
 */
function follower(chain: ChainAdapter, db: Db, lag = 2n) {
  const seen = new Map<bigint, Hash>()
  let last = -1n
  return {
    seen,
    async follow() {
      const head = await chain.blockNumber()
      for (let n = last + 1n; n <= head; n++) {
        const block = (await chain.getBlock(n))!
        if (seen.has(n - 1n)) expect(block.parentHash, `block ${n}'s parent`).toBe(seen.get(n - 1n))
        seen.set(n, block.hash)
        last = n
      }
      const at = head - lag
      const row = {
        chainId: '31337',
        blockNumber: Number(at),
        blockHash: seen.get(at)!,
        updatedAt: new Date(),
      }
      await db
        .insertInto('chainCursors')
        .values(row)
        .onConflict((oc) => oc.column('chainId').doUpdateSet(row))
        .execute()
    },
  }
}

async function until(what: string, ok: () => boolean, ms = 60_000) {
  const end = Date.now() + ms
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('the live devnet EVM swapped for one rebuilt from the compacted journal', () => {
  it('carries the state, the head and the hashes readers saw; a failed rebuild keeps the running EVM', {
    timeout: 240_000,
  }, async () => {
    const database = await openTestDatabase()
    const db = database.db
    const real = dbJournal(db)
    // the fault, in front of the real journal: reading it back fails while set
    let failLoad = false
    const journal: DevnetJournal = {
      load: async () => {
        if (failLoad) throw new Error('journal read failed (injected)')
        return real.load()
      },
      append: (entry) => real.append(entry),
    }
    const compaction = {
      ...journalCompaction(db, chainHistory(db)),
      everyBlocks: 40,
      minBlocks: 5,
      // a chain this short holds fewer blocks than the dev accounts a rebuild carries: swap all the same
      swapBlocksPerCarried: 0,
    }
    const infos: { message: string; details: Record<string, unknown> }[] = []
    const warnings: string[] = []
    const chain = await openDevnet({
      ...builtinCoinsConfig(),
      journal,
      compaction,
      onInfo: (message, details) => infos.push({ message, details }),
      onWarning: (message) => warnings.push(message),
    })
    const swaps = () => infos.filter((i) => /swapped in/.test(i.message))
    let closed = false
    try {
      const url = await chain.devnet!.listen(0)
      const reader = follower(chain, db)
      await reader.follow()
      const payer = chain.devnet!.accounts[8]!
      const to: Address[] = Array.from({ length: 4 }, fresh)
      const native = new Map<Address, bigint>()
      const usdc = new Map<Address, bigint>()
      let nonce = await chain.getNonce(payer.address)
      /** each transfer's block, read when it was mined */
      const txs = new Map<Hash, bigint>()
      const treasuryUsdc = await chain.balanceOf(chain.treasury.address, 'usdc')
      const startHead = await chain.blockNumber()
      // 2 blocks a round: past the threshold of 40 journaled blocks
      for (let i = 0; i < 24; i++) {
        const a = to[i % 4]!
        const signed = await chain.signTransfer(payer.privateKey, {
          coin: 'avax',
          to: a,
          amount: 1000n + BigInt(i),
          nonce: nonce++,
        })
        const hash = await chain.broadcast(signed.raw)
        txs.set(hash, (await chain.getReceipt(hash))!.blockNumber)
        native.set(a, (native.get(a) ?? 0n) + 1000n + BigInt(i))
        await chain.devnet!.fund(a, 'usdc', 7n * BigInt(i + 1))
        usdc.set(a, (usdc.get(a) ?? 0n) + 7n * BigInt(i + 1))
        await reader.follow()
      }
      await chain.treasury.send({ coin: 'usdc', to: to[0]!, amount: 5n })
      usdc.set(to[0]!, usdc.get(to[0]!)! + 5n)
      await until('the swap after the compaction', () => swaps().length === 1)
      await reader.follow()
      expect(warnings).toEqual([])
      const swap = swaps()[0]!.details as { base: number; head: number; shownHashes: number }
      expect(swap.base).toBeGreaterThan(Number(startHead))
      const stored = await real.load()
      expect(isState(stored[0])).toBe(true)
      expect((stored[0]!.params[0] as { base: number }).base).toBe(swap.base)

      // the state carries over: balances, token balances, nonces, the treasury's tokens
      const expectState = async (on = chain) => {
        for (const a of to) {
          expect(await on.balances(a)).toEqual({ avax: native.get(a), usdc: usdc.get(a) })
          expect(await on.getNonce(a)).toBe(0)
        }
        expect(await on.getNonce(payer.address)).toBe(nonce)
        expect(await on.balanceOf(on.treasury.address, 'usdc')).toBe(treasuryUsdc - 5n)
      }
      await expectState()
      // the head goes on from where it was, and the blocks a reader saw have the hashes it saw
      const head = await chain.blockNumber()
      expect(head).toBeGreaterThanOrEqual(BigInt(swap.head))
      for (const [n, hash] of reader.seen)
        if (n >= BigInt(swap.base)) expect((await chain.getBlock(n))!.hash, `block ${n}`).toBe(hash)
      // over JSON-RPC too, and asked by the hash the reader knows
      const byHash = (await rpc(url, 'eth_getBlockByHash', [reader.seen.get(head), false])) as {
        number: string
      }
      expect(BigInt(byHash.number)).toBe(head)
      // receipts of transactions above the base name the blocks as the reader saw them; those
      // below it are gone, as after a restart
      for (const [hash, at] of txs) {
        const receipt = await chain.getReceipt(hash)
        if (at > BigInt(swap.base)) {
          expect(receipt?.blockNumber).toBe(at)
          expect(receipt?.blockHash).toBe(reader.seen.get(at))
        } else expect(receipt).toBeNull()
      }

      // a transfer after the swap: mined on top of the head the reader saw
      const after = await chain.broadcast(
        (await chain.signTransfer(payer.privateKey, { coin: 'avax', to: to[1]!, amount: 9n, nonce: nonce++ }))
          .raw,
      )
      native.set(to[1]!, native.get(to[1]!)! + 9n)
      const receipt = (await chain.getReceipt(after))!
      expect(receipt.status).toBe('success')
      expect(receipt.blockNumber).toBe(head + 1n)
      await reader.follow()
      expect((await chain.getBlock(head + 1n))!.parentHash).toBe(reader.seen.get(head))
      await expectState()

      // a rebuild asked while calls are in flight: reads answer, a send waits for its turn and is
      // mined after it, block numbers never go back
      const numbers: bigint[] = []
      const reads = Array.from({ length: 20 }, async (_, i) => {
        await new Promise((r) => setTimeout(r, i * 20))
        numbers.push(BigInt((await rpc(url, 'eth_blockNumber')) as string))
        return rpc(url, 'eth_getBalance', [to[3], 'latest'])
      })
      const rebuilt = chain.devnet!.rebuild()
      const send = chain
        .signTransfer(payer.privateKey, { coin: 'avax', to: to[2]!, amount: 3n, nonce: nonce++ })
        .then((s) => chain.broadcast(s.raw))
      const done = await rebuilt
      expect(done.head).toBe(head + 1n)
      for (const balance of await Promise.all(reads))
        expect(BigInt(balance as string)).toBe(native.get(to[3]!))
      const sent = (await chain.getReceipt(await send))!
      native.set(to[2]!, native.get(to[2]!)! + 3n)
      expect(sent.blockNumber).toBe(head + 2n)
      for (let i = 1; i < numbers.length; i++) expect(numbers[i]! >= numbers[i - 1]!).toBe(true)
      await reader.follow()
      await expectState()

      // a rebuild that fails keeps the running EVM: asked directly, then after a compaction
      failLoad = true
      await expect(chain.devnet!.rebuild()).rejects.toThrow(/journal read failed/)
      const swapsBefore = swaps().length
      for (let i = 0; i < 22; i++) {
        await chain.devnet!.fund(to[3]!, 'usdc', 1n)
        usdc.set(to[3]!, usdc.get(to[3]!)! + 1n)
        await chain.devnet!.mine(1)
        await reader.follow()
      }
      await until('the failed swap', () => warnings.some((w) => /not swapped.*journal read failed/.test(w)))
      expect(swaps().length).toBe(swapsBefore)
      failLoad = false
      await expectState()
      const tip = await chain.blockNumber()
      expect((await chain.getBlock(tip))!.hash).toBe(reader.seen.get(tip))
      const last = await chain.broadcast(
        (await chain.signTransfer(payer.privateKey, { coin: 'avax', to: to[0]!, amount: 1n, nonce: nonce++ }))
          .raw,
      )
      expect((await chain.getReceipt(last))!.blockNumber).toBe(tip + 1n)
      native.set(to[0]!, native.get(to[0]!)! + 1n)
      await reader.follow()
      expect(await rpc(url, 'eth_blockNumber')).toBe(toHex(tip + 1n))
      await chain.close()
      closed = true

      // a restart on the journal the swaps left: the same head and state; the reader's cursor
      // gets the rebuilt chain's hash, as after any compaction
      const again = await openDevnet({ ...builtinCoinsConfig(), journal: real, compaction })
      try {
        expect(await again.blockNumber()).toBe(tip + 1n)
        await expectState(again)
        const cursor = await db.selectFrom('chainCursors').selectAll().executeTakeFirstOrThrow()
        expect(cursor.blockHash).toBe((await again.getBlock(BigInt(cursor.blockNumber)))!.hash)
      } finally {
        await again.close()
      }
    } finally {
      if (!closed) await chain.close()
      await database.close()
    }
  })
})
