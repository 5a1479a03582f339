// The devnet's misbehaviour controls on the real chain engine: a snapshot and a revert make a
// reorganisation, automine off (with or without interval mining) builds a mempool, the base fee
// can be spiked; over the adapter's provider, the controls object and the loopback JSON-RPC
// server alike. A restart replays the journal, controls included, and rebuilds the same chain.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { openDevnet } from '../../src/platform/chain/devnet.ts'
import { fileJournal } from '../../src/platform/chain/journal.ts'
import type { ChainAdapter, DevnetControls } from '../../src/platform/chain/types.ts'

type Devnet = ChainAdapter & { devnet: DevnetControls }
const dir = mkdtempSync(join(tmpdir(), 'wp-controls-'))
let chain: Devnet
let url: string
beforeAll(async () => {
  chain = (await openDevnet(builtinCoinsConfig())) as Devnet
  url = await chain.devnet.listen(0)
})
afterAll(async () => {
  await chain?.close()
  rmSync(dir, { recursive: true, force: true })
})

const fresh = () => privateKeyToAccount(generatePrivateKey()).address
const hashAt = async (c: ChainAdapter, n: bigint) => (await c.getBlock(n))!.hash

async function rpc(body: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(res.status).toBe(200)
  return res.json()
}

/** sends `amount` wei of the native coin from dev account `index` to `to` */
async function pay(c: ChainAdapter, index: number, to: `0x${string}`, amount = 1000n) {
  const payer = c.devnet!.accounts[index]!
  const signed = await c.signTransfer(payer.privateKey, {
    coin: 'avax',
    to,
    amount,
    nonce: await c.client.getTransactionCount({ address: payer.address, blockTag: 'pending' }),
  })
  await c.broadcast(signed.raw)
  return signed
}

/** resolves when `check` holds, reading again every 20 ms (the chain mines on its own timer) */
async function until(check: () => Promise<boolean>) {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20))
}

describe('devnet controls', () => {
  it('a snapshot and a revert with new blocks after it reorganise the chain: the hash at a height changes', async () => {
    const to = fresh()
    const id = await chain.devnet.snapshot()
    const base = await chain.blockNumber()
    const gone = await pay(chain, 0, to)
    await chain.devnet.mine(1)
    const oldTip = await hashAt(chain, base + 2n)
    const replaced = await hashAt(chain, base + 1n)

    expect(await chain.devnet.revert(id)).toBe(true)
    expect(await chain.blockNumber()).toBe(base)
    // another branch of two blocks at the same heights
    const kept = await pay(chain, 0, to, 7n)
    await chain.devnet.mine(1)
    expect(await chain.blockNumber()).toBe(base + 2n)
    expect(await hashAt(chain, base + 1n)).not.toBe(replaced)
    expect(await hashAt(chain, base + 2n)).not.toBe(oldTip)
    expect(await chain.getReceipt(gone.hash)).toBeNull()
    expect((await chain.getReceipt(kept.hash))?.status).toBe('success')
    expect(await chain.balanceOf(to, 'avax')).toBe(7n)
    // a snapshot is used up by its revert
    expect(await chain.devnet.revert(id)).toBe(false)
  })

  it('the same methods answer over the adapter provider and over the loopback JSON-RPC server, batches too', async () => {
    const id = (await chain.client.request({ method: 'evm_snapshot' } as never)) as Hex
    expect(id).toMatch(/^0x[0-9a-f]+$/)
    const head = await chain.blockNumber()
    const answers = (await rpc([
      { jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'evm_snapshot', params: [] },
    ])) as { id: number; result?: unknown; error?: unknown }[]
    expect(answers.map((a) => a.error)).toEqual([undefined, undefined])
    expect(await chain.blockNumber()).toBe(head + 1n)
    expect(await rpc({ jsonrpc: '2.0', id: 3, method: 'evm_revert', params: [id] })).toMatchObject({
      result: true,
    })
    expect(await chain.blockNumber()).toBe(head)
    for (const [method, params] of [
      ['evm_setAutomine', [true]],
      ['evm_setIntervalMining', [0]],
      ['hardhat_setNextBlockBaseFeePerGas', ['0x3b9aca00']],
    ] as const)
      expect(await rpc({ jsonrpc: '2.0', id: 4, method, params })).toMatchObject({ result: true })
    // what would throw away the deployed tokens stays refused
    expect(await rpc({ jsonrpc: '2.0', id: 5, method: 'hardhat_reset', params: [] })).toMatchObject({
      error: { code: -32601 },
    })
    expect(
      await rpc({ jsonrpc: '2.0', id: 6, method: 'evm_setIntervalMining', params: ['soon'] }),
    ).toMatchObject({ error: { code: -32602 } })
  })

  it('automine off builds a mempool; a mine on demand or interval mining empties it', async () => {
    const to = fresh()
    await chain.devnet.setAutomine(false)
    try {
      const a = await pay(chain, 1, to, 1n)
      const b = await pay(chain, 1, to, 2n)
      expect(await chain.getReceipt(a.hash)).toBeNull()
      const pending = await chain.client.getBlock({ blockTag: 'pending' })
      expect(pending.transactions).toEqual(expect.arrayContaining([a.hash, b.hash]))
      await chain.devnet.mine(1)
      const ra = await chain.getReceipt(a.hash)
      expect(ra?.blockNumber).toBe((await chain.getReceipt(b.hash))?.blockNumber)

      const head = await chain.blockNumber()
      const c = await pay(chain, 1, to, 4n)
      await chain.devnet.setIntervalMining(50)
      await until(async () => (await chain.getReceipt(c.hash)) !== null)
      // empty blocks keep coming on the timer
      await until(async () => (await chain.blockNumber()) >= head + 3n)
    } finally {
      await chain.devnet.setIntervalMining(0)
      await chain.devnet.setAutomine(true)
    }
    expect(await chain.balanceOf(to, 'avax')).toBe(7n)
  })

  it('many blocks mined at once are a chain: each names the block before it as its parent', async () => {
    const base = await chain.blockNumber()
    await chain.devnet.mine(30)
    await chain.client.request({ method: 'hardhat_mine', params: ['0x3', '0xa'] } as never)
    expect(await chain.blockNumber()).toBe(base + 33n)
    let parent = (await chain.getBlock(base))!
    for (let n = base + 1n; n <= base + 33n; n++) {
      const block = (await chain.getBlock(n))!
      expect(block.parentHash, `block ${n}`).toBe(parent.hash)
      if (n > base + 31n) expect(block.timestamp - parent.timestamp).toBe(10n)
      parent = block
    }
  })

  it('the base fee of the next block can be spiked', async () => {
    const before = (await chain.client.getBlock({ blockTag: 'latest' })).baseFeePerGas!
    const spike = before * 50n + 10n ** 9n
    await chain.devnet.setNextBaseFee(spike)
    await chain.devnet.mine(1)
    expect((await chain.client.getBlock({ blockTag: 'latest' })).baseFeePerGas).toBe(spike)
  })

  it('one method can be answered with a node error (a refusal, not an outage) until undone', async () => {
    chain.devnet.refuse('eth_feeHistory', {
      code: -32601,
      message: 'the method eth_feeHistory does not exist',
    })
    try {
      const err = await chain.estimateFees().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(err).toMatchObject({ name: 'ChainError', code: 'REJECTED', retryable: false })
      expect((err as Error).message).toMatch(/eth_feeHistory does not exist/)
      expect(
        await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_feeHistory', params: ['0x1', 'latest', []] }),
      ).toMatchObject({
        error: { code: -32601 },
      })
      // other methods answer as before
      expect(await chain.client.getBlockNumber()).toBeGreaterThan(0n)
    } finally {
      chain.devnet.refuse('eth_feeHistory', null)
    }
    expect(await chain.estimateFees()).toBeTruthy()
  })
})

describe('devnet controls and the journal', () => {
  it('a restart after reverts and interval mining rebuilds the surviving branch', {
    timeout: 90_000,
  }, async () => {
    const journal = fileJournal(join(dir, 'journal.jsonl'))
    const warnings: string[] = []
    const onWarning = (m: string) => warnings.push(m)
    const to = fresh()
    const first = (await openDevnet({ ...builtinCoinsConfig(), journal, onWarning })) as Devnet
    let hashes: string[]
    let keptSnapshot: Hex
    let head: bigint
    let waiting: { hash: Hex }
    let waitingBlock: bigint | null
    let balance: bigint
    try {
      const id = await first.devnet.snapshot()
      const gone = await pay(first, 2, to, 100n)
      await first.devnet.mine(2)
      await first.devnet.revert(id)
      await pay(first, 2, to, 5n)
      await first.devnet.setNextBaseFee(10n ** 11n)
      await first.devnet.setAutomine(false)
      const start = await first.blockNumber()
      // priced before the spike: it waits in the mempool until the base fee has come down (how
      // many interval blocks that takes depends on the machine's speed: either way is replayed)
      waiting = await pay(first, 2, to, 6n)
      await first.devnet.setIntervalMining(30)
      await until(async () => (await first.blockNumber()) >= start + 3n)
      await first.devnet.setIntervalMining(0)
      await first.devnet.setAutomine(true)
      // a mine through the provider runs after any interval block in flight
      await first.devnet.mine(1)
      keptSnapshot = await first.devnet.snapshot()
      await first.devnet.mine(2)
      head = await first.blockNumber()
      hashes = []
      for (let n = 0n; n <= head; n++) hashes.push(await hashAt(first, n))
      expect(await first.getReceipt(gone.hash)).toBeNull()
      waitingBlock = (await first.getReceipt(waiting.hash))?.blockNumber ?? null
      balance = await first.balanceOf(to, 'avax')
      expect(balance).toBe(waitingBlock === null ? 5n : 11n)
    } finally {
      await first.close()
    }

    const again = (await openDevnet({ ...builtinCoinsConfig(), journal, onWarning })) as Devnet
    try {
      expect(await again.blockNumber()).toBe(head)
      for (let n = 0n; n <= head; n++) expect(await hashAt(again, n)).toBe(hashes[Number(n)])
      expect(await again.balanceOf(to, 'avax')).toBe(balance)
      expect((await again.getReceipt(waiting.hash))?.blockNumber ?? null).toBe(waitingBlock)
      // a snapshot taken before the restart can still be reverted to
      expect(await again.devnet.revert(keptSnapshot)).toBe(true)
      expect(await again.blockNumber()).toBe(head - 2n)
    } finally {
      await again.close()
    }
    expect(warnings).toEqual([])
  })
})
