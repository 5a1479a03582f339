// How the devnet records its state changes and replays them so that a restart rebuilds the very
// same chain: same transactions in the same blocks, and the same block hashes. A block's hash
// covers its timestamp, so the journal also records the timestamp of every block a call mined
// (as an `evm_setNextBlockTimestamp` entry just before the call), and the replay mines each block
// at its recorded time. Without that, every restart would look like a deep reorg to anyone who
// remembers a block hash (the deposit watcher does).
import { type Hex, toHex } from 'viem'
import { DevnetDownError } from './errors.ts'
import type { Eip1193 } from './rpc-server.ts'
import type { DevnetJournal, DevnetJournalEntry } from './types.ts'

/** JSON-RPC methods that change chain state: recorded in the journal, replayed at start */
export const STATEFUL = new Set([
  'eth_sendRawTransaction',
  'eth_sendTransaction',
  'hardhat_setBalance',
  'hardhat_setCode',
  'hardhat_setNonce',
  'hardhat_setStorageAt',
  'hardhat_mine',
  'evm_mine',
  'evm_setAutomine',
  'evm_increaseTime',
  'evm_setNextBlockTimestamp',
  'hardhat_setNextBlockBaseFeePerGas',
  'hardhat_setCoinbase',
  'hardhat_setMinGasPrice',
  'hardhat_impersonateAccount',
  'hardhat_stopImpersonatingAccount',
  'hardhat_dropTransaction',
])
/** methods that would break the journal (history rewrites) or the process */
export const REFUSED = new Set(['evm_snapshot', 'evm_revert', 'hardhat_reset', 'evm_setIntervalMining'])

/** The entry recording the timestamp of the first block the next entry mined. */
const TIMESTAMP = 'evm_setNextBlockTimestamp'

const head = async (node: Eip1193) => BigInt((await node.request({ method: 'eth_blockNumber' })) as Hex)

/**
 * Runs one state-changing call on the node and reports what it mined. A call that failed may still
 * have mined a block (a reverted transaction is mined, then reported as an error): it changed the
 * chain all the same.
 */
async function applyCall(
  node: Eip1193,
  call: { method: string; params?: unknown[] },
): Promise<{ result?: unknown; error?: unknown; firstBlockTime?: number }> {
  const before = await head(node)
  let result: unknown
  let error: unknown
  let failed = false
  try {
    result = await node.request(call)
  } catch (err) {
    error = err
    failed = true
  }
  const after = await head(node)
  if (after === before) return failed ? { error } : { result }
  const block = (await node.request({
    method: 'eth_getBlockByNumber',
    params: [toHex(before + 1n), false],
  })) as { timestamp: Hex }
  const firstBlockTime = Number(BigInt(block.timestamp))
  return failed ? { error, firstBlockTime } : { result, firstBlockTime }
}

/** Serialises state changes so the journal order is the order the node applied them. */
export class JournaledProvider implements Eip1193 {
  down = false
  private tail: Promise<unknown> = Promise.resolve()
  constructor(
    private readonly inner: Eip1193,
    private readonly journal: DevnetJournal | undefined,
  ) {}

  async request(args: { method: string; params?: unknown[] }): Promise<unknown> {
    if (this.down) throw new DevnetDownError()
    if (REFUSED.has(args.method))
      throw Object.assign(new Error(`${args.method} is not supported by this devnet`), { code: -32601 })
    if (!STATEFUL.has(args.method)) return this.inner.request(args)
    const run = this.tail.then(async () => {
      const out = await applyCall(this.inner, args)
      if (out.firstBlockTime !== undefined)
        await this.journal?.append({ method: TIMESTAMP, params: [out.firstBlockTime] })
      if (!('error' in out) || out.firstBlockTime !== undefined)
        await this.journal?.append({ method: args.method, params: args.params ?? [] })
      if ('error' in out) throw out.error
      return out.result
    })
    this.tail = run.catch(() => {})
    return run
  }

  /** resolves when every state change so far is applied and journaled */
  idle(): Promise<unknown> {
    return this.tail
  }
}

/**
 * Replays journal entries on a node built from the same genesis. An entry the node now refuses is
 * reported (the rebuilt chain may then differ from the journaled one); one that fails but mines,
 * as it did the first time (a reverted transaction), is not.
 */
export async function replayJournal(
  node: Eip1193,
  entries: DevnetJournalEntry[],
  onWarning?: (message: string) => void,
): Promise<void> {
  for (const entry of entries) {
    const out = await applyCall(node, { method: entry.method, params: entry.params })
    if ('error' in out && out.firstBlockTime === undefined)
      onWarning?.(`devnet replay: ${entry.method} refused: ${(out.error as Error).message.split('\n')[0]}`)
  }
}

/**
 * Moves the node's clock forward to the wall clock (never back): the bootstrap and the replay
 * mined their blocks at recorded times, in the past. Not journaled: every block mined from now on
 * has its own timestamp recorded.
 */
export async function catchUpClock(node: Eip1193, nowSeconds = Math.floor(Date.now() / 1000)) {
  const latest = (await node.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as {
    timestamp: Hex
  }
  const behind = nowSeconds - Number(BigInt(latest.timestamp))
  if (behind > 0) await node.request({ method: 'evm_increaseTime', params: [behind] })
}
