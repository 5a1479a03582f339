// The devnet journal's compaction, on the devnet alone (a journal and readers kept in memory, as
// the service keeps them in its database): what a restart rebuilds from the compacted journal is
// the same state (every touched account's balance and nonce, the dev tokens' balances and
// allowances), at the same height, with the hashes the service keeps rebased; a contract deployed
// by hand makes the compaction refuse.
import { encodeDeployData, encodeFunctionData, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { openDevnet } from '../../src/platform/chain/devnet.ts'
import { DISTRIBUTOR_ADDRESS } from '../../src/platform/chain/devnet-apply-state.ts'
import { isState } from '../../src/platform/chain/devnet-compaction.ts'
import type { DevnetCompaction } from '../../src/platform/chain/devnet-compactor.ts'
import type { ChainAdapter, DevnetJournal, DevnetJournalEntry } from '../../src/platform/chain/types.ts'

const APPROVE = [
  {
    type: 'function',
    name: 'approve',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 's', type: 'address' },
      { name: 'v', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'allowance',
    stateMutability: 'view',
    inputs: [
      { name: 'o', type: 'address' },
      { name: 's', type: 'address' },
    ],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const

/** A journal and the service's records, in memory; `commit` swaps both at once. */
function memoryStore() {
  const store = {
    entries: [] as DevnetJournalEntry[],
    cursor: null as { number: bigint; hash: string } | null,
    openTxHashes: [] as string[],
    commits: 0,
  }
  const journal: DevnetJournal = {
    load: async () => structuredClone(store.entries),
    append: async (e) => {
      store.entries.push(structuredClone(e))
    },
  }
  const compaction: DevnetCompaction = {
    readers: async () => ({ cursor: store.cursor?.number ?? null, openTxHashes: store.openTxHashes }),
    recordedBlocks: async () => (store.cursor ? [store.cursor.number] : []),
    commit: async (_chainId, entries, hashes) => {
      store.commits++
      store.entries = structuredClone(entries)
      if (store.cursor && hashes.has(store.cursor.number))
        store.cursor = { number: store.cursor.number, hash: hashes.get(store.cursor.number)! }
    },
    everyBlocks: 1_000_000,
  }
  return { store, journal, compaction }
}

async function rpc(chain: ChainAdapter, method: string, params: unknown[] = []) {
  const url = chain.devnet!.rpcUrl ?? (await chain.devnet!.listen(0))
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result?: unknown; error?: { message: string } }
  if (body.error) throw new Error(body.error.message)
  return body.result
}

/** every balance, token balance, allowance and nonce the test touched */
async function stateOf(chain: ChainAdapter, addresses: string[], spender: string) {
  const usdc = chain.coin('usdc').contractAddress!
  const out: Record<string, unknown> = {}
  for (const a of addresses) {
    const allowance = (await rpc(chain, 'eth_call', [
      {
        to: usdc,
        data: encodeFunctionData({
          abi: APPROVE,
          functionName: 'allowance',
          args: [a as Hex, spender as Hex],
        }),
      },
      'latest',
    ])) as Hex
    out[a] = {
      balances: await chain.balances(a as Hex),
      nonce: await chain.getNonce(a as Hex),
      allowance: BigInt(allowance),
    }
  }
  return out
}

describe('devnet journal compaction', () => {
  it('a restart rebuilds the same state at the same height from the compacted journal', {
    timeout: 120_000,
  }, async () => {
    const { store, journal, compaction } = memoryStore()
    const first = await openDevnet({ ...builtinCoinsConfig(), journal, compaction })
    const payer = first.devnet!.accounts[5]!
    const spender = privateKeyToAccount(generatePrivateKey()).address
    const to = Array.from({ length: 4 }, () => privateKeyToAccount(generatePrivateKey()).address)
    let nonce = await first.getNonce(payer.address)
    for (const [i, a] of to.entries()) {
      await first.broadcast(
        (
          await first.signTransfer(payer.privateKey, {
            coin: 'avax',
            to: a,
            amount: 1000n + BigInt(i),
            nonce: nonce++,
          })
        ).raw,
      )
      await first.devnet!.fund(a, 'usdc', 77n * BigInt(i + 1))
    }
    await first.treasury.send({ coin: 'usdc', to: to[0]!, amount: 5n })
    await rpc(first, 'eth_sendTransaction', [
      {
        from: payer.address,
        to: first.coin('usdc').contractAddress,
        data: encodeFunctionData({ abi: APPROVE, functionName: 'approve', args: [spender, 999n] }),
      },
    ])
    await first.devnet!.setNextBaseFee(3_000_000_000n)
    const cursorAt = await first.blockNumber()
    store.cursor = { number: cursorAt, hash: (await first.getBlock(cursorAt))!.hash }
    // after the base: entries kept as they are
    nonce = await first.getNonce(payer.address)
    const late = await first.signTransfer(payer.privateKey, {
      coin: 'avax',
      to: to[1]!,
      amount: 5n,
      nonce: nonce++,
    })
    await first.broadcast(late.raw)
    await first.devnet!.fund(to[2]!, 'usdc', 9n)
    const entriesBefore = store.entries.length

    const result = await first.devnet!.compact()
    expect(result).toEqual({ base: cursorAt })
    expect(isState(store.entries[0])).toBe(true)
    expect(store.entries.length).toBeLessThan(entriesBefore)
    const touched = [
      payer.address,
      first.treasury.address,
      spender,
      ...to,
      ...first.devnet!.accounts.map((a) => a.address),
    ]
    const expected = await stateOf(first, touched, payer.address)
    const expectedSpend = await stateOf(first, [payer.address], spender)
    const head = await first.blockNumber()
    await first.close()

    const second = await openDevnet({ ...builtinCoinsConfig(), journal, compaction })
    try {
      expect(await second.blockNumber()).toBe(head)
      expect(await stateOf(second, touched, payer.address)).toEqual(expected)
      // the new addresses were paid by the distributor below the base, not one by one
      expect(await rpc(second, 'eth_getCode', [DISTRIBUTOR_ADDRESS, 'latest'])).not.toBe('0x')
      expect(await stateOf(second, [payer.address], spender)).toEqual(expectedSpend)
      // the transactions after the base are there with their receipts; the cursor's hash is the new one
      expect((await second.getReceipt(late.hash))?.status).toBe('success')
      expect(store.cursor.hash).toBe((await second.getBlock(cursorAt))!.hash)
      expect((store.entries[0]!.params[0] as { rebase: boolean }).rebase).toBe(false)
      // block hashes chain from the base to the head: a watcher following parents from its cursor
      // is not stopped (the empty blocks below the base are EDR's reserved blocks)
      for (let n = cursorAt; n <= head; n++)
        expect((await second.getBlock(n))!.parentHash).toBe((await second.getBlock(n - 1n))!.hash)
      // the chain goes on: a new transfer, then a second compaction on top of the first
      await second.broadcast(
        (
          await second.signTransfer(payer.privateKey, {
            coin: 'avax',
            to: to[3]!,
            amount: 1n,
            nonce: nonce++,
          })
        ).raw,
      )
      store.cursor = {
        number: await second.blockNumber(),
        hash: (await second.getBlock(await second.blockNumber()))!.hash,
      }
      expect(await second.devnet!.compact()).toEqual({ base: store.cursor.number })
    } finally {
      await second.close()
    }
  })

  it('refuses, and leaves the journal as it was, when a contract was deployed by hand', {
    timeout: 60_000,
  }, async () => {
    const { store, journal, compaction } = memoryStore()
    const warnings: string[] = []
    const chain = await openDevnet({
      ...builtinCoinsConfig(),
      journal,
      compaction,
      onWarning: (m) => warnings.push(m),
    })
    try {
      const from = chain.devnet!.accounts[6]!.address
      // the smallest contract: returns nothing, but holds code the service cannot enumerate
      await rpc(chain, 'eth_sendTransaction', [
        { from, data: encodeDeployData({ abi: [], bytecode: '0x6001600c60003960016000f300' }) },
      ])
      await chain.devnet!.fund(from, 'usdc', 1n)
      const head = await chain.blockNumber()
      store.cursor = { number: head, hash: (await chain.getBlock(head))!.hash }
      const before = structuredClone(store.entries)
      const result = await chain.devnet!.compact()
      expect(result).toMatchObject({ refused: expect.stringMatching(/contract was deployed/) })
      expect(store.entries).toEqual(before)
      expect(store.commits).toBe(0)
      expect(warnings.some((w) => /not compacted: a contract was deployed/.test(w))).toBe(true)
    } finally {
      await chain.close()
    }
  })
})
