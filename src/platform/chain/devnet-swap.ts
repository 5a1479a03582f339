// The live EVM rebuilt from the compacted journal and swapped in, so that the running process
// lets go of the blocks below the base as a restart does (EDR keeps every block's state for as
// long as the EVM lives). Run in the devnet's turn of state changes, after a compaction commits:
// a new EVM of the same chain is built the way a start builds it (the genesis bootstrap, the
// journal as read back from where it is kept, the clock), checked against the running one (the
// head, the last blocks' contents, the next block's base fee, the pending transactions, a sample
// of balances, nonces and token balances), given the running one's block hashes to show
// (devnet-live.ts), then put in its place. Anything that fails leaves the running EVM as it was.
import type { Address, Hex } from 'viem'
import type { CoinSettings } from './coins-config.ts'
import { type BuiltChain, buildChain, type DevnetKeys } from './devnet-bootstrap.ts'
import { isState, lower, num, SLOT_BALANCES, SLOT_TOTAL_SUPPLY, storageKey } from './devnet-compaction.ts'
import type { JournaledProvider } from './devnet-journal.ts'
import type { LiveNode } from './devnet-live.ts'
import type { Eip1193 } from './rpc-server.ts'
import type { DevnetJournal, DevnetJournalEntry } from './types.ts'

export interface SwapContext {
  live: LiveNode
  provider: JournaledProvider
  journal: DevnetJournal
  coins: CoinSettings[]
  keys: DevnetKeys
  /** the dev accounts, the deployer and the platform keys (compared after the rebuild) */
  known: Address[]
  tokens: Address[]
}

export interface Swapped {
  head: bigint
  base: bigint
  /** journal entries replayed (the state entry included) */
  entries: number
  /** blocks whose hashes the new EVM shows as the old one's */
  shownHashes: number
  ms: number
}

/** blocks below the head whose contents are compared */
const COMPARED_BLOCKS = 16n
/** accounts and token holders of the state entry compared (besides the dev and platform accounts) */
const SAMPLE = 64

interface Block {
  hash: string
  timestamp: Hex
  transactionsRoot: string
  receiptsRoot: string
  logsBloom: string
  gasUsed: Hex
  baseFeePerGas?: Hex
  miner: string
  transactions: string[]
}

const block = async (node: Eip1193, at: bigint | 'pending') =>
  (await node.request({
    method: 'eth_getBlockByNumber',
    params: [at === 'pending' ? at : `0x${at.toString(16)}`, false],
  })) as Block | null

class Mismatch extends Error {}

const text = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))

function same(what: string, was: unknown, now: unknown) {
  const a = text(was)
  const b = text(now)
  if (a !== b) throw new Mismatch(`the rebuilt EVM differs: ${what} is ${b}, not ${a}`)
}

/**
 * What a rebuild would let go of against what it would carry: the blocks the running EVM holds
 * above the base it was built from (each about 15–24 KB in EDR) against the accounts, token
 * balances and allowances the state entry sets again (each about 6–8 KB paid in bulk, about a
 * block's worth set one by one). A chain whose accounts grow as fast as its blocks (every transfer
 * to a new address) gains nothing from a rebuild and loses the memory of two EVMs at once.
 */
export function swapWorth(
  entries: DevnetJournalEntry[],
  head: bigint,
  builtFrom: bigint,
  blocksPerCarried: number,
): { worth: boolean; blocks: number; carried: number } {
  const first = entries[0]
  const blocks = Number(head - builtFrom)
  if (!isState(first)) return { worth: false, blocks, carried: 0 }
  const state = first.params[0]
  const carried =
    state.accounts.length + state.tokens.reduce((n, t) => n + t.balances.length + t.allowances.length, 0)
  return { worth: blocks >= blocksPerCarried * carried, blocks, carried }
}

/** Rebuilds the EVM from the journal and swaps it in; throws (the running EVM kept) on any failure. */
export async function swapEvm(c: SwapContext): Promise<Swapped> {
  const started = performance.now()
  const old = c.live
  const head = num(await old.request({ method: 'eth_blockNumber' }))
  const entries = await c.journal.load()
  const first = entries[0]
  if (!isState(first)) throw new Error('the journal holds no state entry (nothing was compacted)')
  if (entries.length !== c.provider.entries.length)
    throw new Error(
      `the journal read back has ${entries.length} entries, the devnet ${c.provider.entries.length}`,
    )
  const state = first.params[0]
  const base = BigInt(state.base)
  const pending = (await block(old, 'pending'))!
  const engine = await c.live.generation.engine.another()
  try {
    const warnings: string[] = []
    const built: BuiltChain = await buildChain(engine.provider, {
      coins: c.coins,
      keys: c.keys,
      entries,
      onWarning: (m) => warnings.push(m),
      nowSeconds: Number(num(pending.timestamp)),
    })
    if (warnings.length > 0) throw new Error(`the replay of the journal was refused: ${warnings[0]}`)
    const next = engine.provider
    await compare(old, next, {
      head,
      base,
      accounts: [...c.known, ...state.accounts.slice(-SAMPLE).map((a) => a[0])],
      tokens: c.tokens.map((address) => ({
        address,
        holders: (state.tokens.find((t) => lower(t.address) === lower(address))?.balances ?? [])
          .slice(-SAMPLE)
          .map((b) => b[0]),
      })),
    })
    // the hashes callers saw of the blocks the new EVM holds again, from the base to the head
    const shown = new Map<string, string>()
    const actual = new Map<string, string>()
    for (let n = base; n <= head; n++) {
      const was = (await block(old, n))!.hash.toLowerCase()
      const now = (await block(next, n))!.hash.toLowerCase()
      shown.set(now, was)
      actual.set(was, now)
    }
    c.live.swap({ engine, shown, actual })
    c.provider.useSnapshotIds(built.snapshotIds)
    return {
      head,
      base,
      entries: entries.length,
      shownHashes: shown.size,
      ms: Math.round(performance.now() - started),
    }
  } catch (err) {
    await engine.close().catch(() => {})
    throw err
  }
}

/** The running EVM (`old`, through the hashes it shows) against the rebuilt one (`next`). */
async function compare(
  old: Eip1193,
  next: Eip1193,
  o: { head: bigint; base: bigint; accounts: string[]; tokens: { address: Address; holders: string[] }[] },
) {
  same('the head', o.head, num(await next.request({ method: 'eth_blockNumber' })))
  const accounts = new Set(o.accounts.map(lower))
  const from = o.head - COMPARED_BLOCKS > o.base ? o.head - COMPARED_BLOCKS : o.base + 1n
  for (let n = from; n <= o.head; n++) {
    const a = (await block(old, n))!
    const b = (await block(next, n))!
    const fields = (x: Block) => [
      x.timestamp,
      x.transactionsRoot,
      x.receiptsRoot,
      x.logsBloom,
      x.gasUsed,
      x.baseFeePerGas,
      lower(x.miner),
      x.transactions,
    ]
    same(`block ${n}`, fields(a), fields(b))
    for (const hash of a.transactions) {
      const tx = (await old.request({ method: 'eth_getTransactionByHash', params: [hash] })) as {
        from: string
        to: string | null
      }
      accounts.add(lower(tx.from))
      if (tx.to) accounts.add(lower(tx.to))
    }
  }
  const pa = (await block(old, 'pending'))!
  const pb = (await block(next, 'pending'))!
  same('the next base fee', pa.baseFeePerGas, pb.baseFeePerGas)
  same('the pending transactions', pa.transactions, pb.transactions)
  same(
    'automine',
    await old.request({ method: 'hardhat_getAutomine' }),
    await next.request({ method: 'hardhat_getAutomine' }),
  )
  const ask = (node: Eip1193, method: string, params: unknown[]) => node.request({ method, params })
  for (const a of accounts) {
    for (const method of ['eth_getBalance', 'eth_getTransactionCount']) {
      const params = [a, 'latest']
      same(`${method} of ${a}`, await ask(old, method, params), await ask(next, method, params))
    }
  }
  for (const t of o.tokens) {
    const slots = [
      `0x${SLOT_TOTAL_SUPPLY.toString(16).padStart(64, '0')}`,
      ...t.holders.map((h) => storageKey(h, SLOT_BALANCES)),
    ]
    for (const slot of slots) {
      const params = [t.address, slot, 'latest']
      same(
        `token ${t.address} slot ${slot}`,
        await ask(old, 'eth_getStorageAt', params),
        await ask(next, 'eth_getStorageAt', params),
      )
    }
  }
}
