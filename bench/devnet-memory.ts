// `node --expose-gc --import ./bench/typescript.mjs bench/devnet-memory.ts [--transfers N]
// [--per-block K] [--journal FILE]`: what the embedded dev chain holds as its history grows, with
// no service around it. Opens the devnet on a journal file, sends N transfers (token mints to new
// addresses and native transfers between dev accounts, half each), K per block (1: one block per
// transaction, as automine makes them), printing the resident memory and the JavaScript heap every
// tenth of the way; then closes it and opens it again on the same journal, timing the replay and
// printing the memory after it. Run it with `npm start`'s Node options to compare with the service
// (`--v8-pool-size=1 --max-semi-space-size=4`). `--compact-every N`: the journal kept in memory
// and compacted every N blocks up to a reader 12 blocks behind the head, the live EVM rebuilt from
// it and swapped in after each compaction, as the service does (the swaps are counted and timed).
// `--holders N`: the token mints go to N addresses in turn instead of a new address each time.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { type Address, getAddress, type Hex, toHex } from 'viem'
import { builtinCoinsConfig, DEVNET_CHAIN_ID } from '../src/platform/chain/coins-config.ts'
import { openDevnet } from '../src/platform/chain/devnet.ts'
import type { DevnetCompaction } from '../src/platform/chain/devnet-compactor.ts'
import { fileJournal } from '../src/platform/chain/journal.ts'
import type { ChainAdapter, DevnetJournal, DevnetJournalEntry } from '../src/platform/chain/types.ts'

const { values: args } = parseArgs({
  options: {
    transfers: { type: 'string', default: '2000' },
    'per-block': { type: 'string', default: '1' },
    // sends in flight together (each group awaited before the next): the devnet mines those that
    // wait together in one block
    concurrency: { type: 'string', default: '1' },
    journal: { type: 'string' },
    keep: { type: 'boolean', default: false },
    // empty blocks only (evm_mine), no transactions: the cost of a block by itself
    empty: { type: 'boolean', default: false },
    'compact-every': { type: 'string' },
    // the token mints go to this many addresses in turn (default: a new address each time)
    holders: { type: 'string' },
  },
})
const transfers = Number(args.transfers)
const perBlock = Number(args['per-block'])
const concurrency = Number(args.concurrency)
const dir = mkdtempSync(join(tmpdir(), 'wp-devnet-mem-'))
const journalFile = args.journal ?? join(dir, 'journal.jsonl')
const compactEvery = args['compact-every'] === undefined ? undefined : Number(args['compact-every'])

// with --compact-every: the journal in memory, and a reader that stays 12 blocks behind the head
let memoryEntries: DevnetJournalEntry[] = []
let reading: ChainAdapter | undefined
const swaps: { ms: number; head: number }[] = []
const memoryJournal: DevnetJournal = {
  load: async () => structuredClone(memoryEntries),
  append: async (e) => {
    memoryEntries.push(e)
  },
}
const compaction: DevnetCompaction | undefined =
  compactEvery === undefined
    ? undefined
    : {
        readers: async () => ({
          cursor: reading ? (await reading.blockNumber()) - 12n : null,
          openTxHashes: [],
        }),
        recordedBlocks: async () => [],
        commit: async (_chainId, entries) => {
          memoryEntries = structuredClone(entries)
        },
        everyBlocks: compactEvery,
      }

const gc = (globalThis as { gc?: () => void }).gc
const mb = (n: number) => Math.round((n / 1048576) * 10) / 10
function memory() {
  gc?.()
  const m = process.memoryUsage()
  return { rssMB: mb(m.rss), heapMB: mb(m.heapUsed), externalMB: mb(m.external + m.arrayBuffers) }
}

async function open(): Promise<{ chain: ChainAdapter; ms: number }> {
  const settings = builtinCoinsConfig()
  const t0 = performance.now()
  const chain = await openDevnet({
    chain: { ...settings.chain, rpcChainId: String(DEVNET_CHAIN_ID) },
    coins: settings.coins,
    journal: compaction ? memoryJournal : fileJournal(journalFile),
    ...(compaction ? { compaction } : {}),
    onWarning: (m) => console.warn(m),
    onInfo: (message, details) => {
      if (/swapped in/.test(message)) swaps.push({ ms: Number(details.ms), head: Number(details.head) })
    },
  })
  reading = chain
  return { chain, ms: Math.round(performance.now() - t0) }
}

const blockNumber = async (chain: ChainAdapter) =>
  Number(BigInt((await chain.client.request({ method: 'eth_blockNumber' })) as Hex))

const before = memory()
const first = await open()
const opened = memory()
console.log(
  JSON.stringify({ step: 'opened', ms: first.ms, block: await blockNumber(first.chain), ...opened, before }),
)
const devnet = first.chain.devnet!
const request = (method: string, params: unknown[]) =>
  (
    first.chain.client as unknown as { request(a: { method: string; params: unknown[] }): Promise<unknown> }
  ).request({ method, params })
const from = devnet.accounts[0]!.address
const to = devnet.accounts[1]!.address
if (perBlock > 1) await devnet.setAutomine(false)
const t0 = performance.now()
const startMem = memory()
const startBlock = await blockNumber(first.chain)
const pending: Promise<unknown>[] = []
for (let i = 1; i <= transfers; i++) {
  if (args.empty) {
    pending.push(request('evm_mine', []))
  } else if (i % 2) {
    const n = args.holders === undefined ? BigInt(i) : BigInt(i % Number(args.holders))
    const fresh = getAddress(toHex(n * 7919n + 0x1000n, { size: 20 })) as Address
    pending.push(devnet.fund(fresh, 'usdc', 1_000_000n))
  } else {
    pending.push(request('eth_sendTransaction', [{ from, to, value: toHex(1000n) }]))
  }
  if (perBlock > 1 && (i % perBlock === 0 || i === transfers)) {
    // every transaction in the pool first, then one block for them
    await Promise.all(pending)
    await devnet.mine(1)
    pending.length = 0
  } else if (perBlock === 1 && (pending.length >= concurrency || i === transfers)) {
    await Promise.all(pending)
    pending.length = 0
  }
  if (i % Math.max(1, Math.floor(transfers / 10)) === 0) {
    const m = memory()
    const block = await blockNumber(first.chain)
    console.log(
      JSON.stringify({
        step: 'sent',
        transfers: i,
        blocks: block - startBlock,
        perSec: Math.round((i / (performance.now() - t0)) * 1000),
        ...m,
        ...(compaction ? { swaps: swaps.length, lastSwapMs: swaps.at(-1)?.ms } : {}),
        rssPer1000BlocksMB:
          block > startBlock ? mb(((m.rssMB - startMem.rssMB) * 1048576 * 1000) / (block - startBlock)) : 0,
      }),
    )
  }
}
if (perBlock > 1) await devnet.setAutomine(true)
const endBlock = await blockNumber(first.chain)
await first.chain.close()
const closed = memory()
console.log(JSON.stringify({ step: 'closed', ...closed }))

const second = await open()
const replayed = memory()
console.log(
  JSON.stringify({
    step: 'reopened (journal replayed)',
    ms: second.ms,
    block: await blockNumber(second.chain),
    expectedBlock: endBlock,
    ...(compaction
      ? { journalEntries: memoryEntries.length }
      : { journalKB: Math.round(statSync(journalFile).size / 1024) }),
    ...replayed,
  }),
)
await second.chain.close()
if (!args.keep && !args.journal) rmSync(dir, { recursive: true, force: true })
process.exit(0)
