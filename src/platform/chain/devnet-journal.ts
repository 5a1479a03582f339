// How the devnet records its state changes and replays them so that a restart rebuilds the very
// same chain: same transactions in the same blocks, and the same block hashes. A block's hash
// covers its timestamp, so the journal also records the timestamp of every block a call mined
// (as an `evm_setNextBlockTimestamp` entry just before the call), and the replay mines each block
// at its recorded time. Without that, every restart would look like a deep reorg to anyone who
// remembers a block hash (the deposit watcher does).
//
// The test controls are journaled like any other state change, in the order the node applied
// them, so that a restart rebuilds the chain as it stands, dead branches included:
// - `evm_snapshot` is recorded with the id the node gave (`params: [id]`); the replay takes a new
//   snapshot at the same point and later `evm_revert`s of that id go to it.
// - `evm_revert` is recorded as called: the replay drops the same blocks, so the chain after a
//   restart is the branch that survived, with the same hashes.
// - interval mining (`evm_setIntervalMining`) is run here, not by the node: each block is an
//   `evm_mine` through this provider, so it is journaled with its timestamp like a mine on demand.
//   The timer itself is process state: a restarted devnet does not mine on an interval until
//   asked again.
// - `hardhat_reset` stays refused: it would throw away the deployed tokens and funded keys.
import { type Hex, keccak256, toHex } from 'viem'
import { applyState } from './devnet-apply-state.ts'
import { isState } from './devnet-compaction.ts'
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
  'evm_snapshot',
  'evm_revert',
])
/** methods that would break the journal or the process */
export const REFUSED = new Set(['hardhat_reset'])

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
  // no block mined (a revert moves the head back: nothing new to stamp)
  if (after <= before) return failed ? { error } : { result }
  const block = (await node.request({
    method: 'eth_getBlockByNumber',
    params: [toHex(before + 1n), false],
  })) as { timestamp: Hex }
  const firstBlockTime = Number(BigInt(block.timestamp))
  return failed ? { error, firstBlockTime } : { result, firstBlockTime }
}

const invalidParams = (message: string) => Object.assign(new Error(message), { code: -32602 })

/** Calls that send a transaction: those waiting together are mined in one block. */
const SENDS = new Set(['eth_sendRawTransaction', 'eth_sendTransaction'])

interface PendingSend {
  args: { method: string; params?: unknown[] }
  resolve: (result: unknown) => void
  reject: (err: unknown) => void
}

/** Serialises state changes so the journal order is the order the node applied them. */
export class JournaledProvider implements Eip1193 {
  down = false
  /** methods answered with a node's error while set (see `ChainDevnet.refuse`) */
  readonly refusals = new Map<string, { code: number; message: string }>()
  private tail: Promise<unknown> = Promise.resolve()
  /** sends waiting for their turn, to be mined in one block */
  private batch: PendingSend[] | undefined
  private timer: NodeJS.Timeout | undefined
  /** bumped by every change of interval mining, so that a tick of an older setting stops */
  private intervalEpoch = 0
  /**
   * @param snapshotIds journaled snapshot id → the id the node gave when the replay took it again
   * (what `replayJournal` returns), so that a revert named by an earlier run's id still works
   */
  /** the journal as stored (what was replayed, then every entry appended): what compaction splits */
  entries: DevnetJournalEntry[] = []
  /** called after each journaled block (compaction counts them) */
  onBlock: (() => void) | undefined
  constructor(
    private readonly inner: Eip1193,
    private readonly journal: DevnetJournal | undefined,
    private snapshotIds: Map<string, string> = new Map(),
  ) {}

  /** after the EVM was rebuilt: the ids the new one gave the journaled snapshots */
  useSnapshotIds(ids: Map<string, string>): void {
    this.snapshotIds = ids
  }

  /** Runs `fn` in the turn of state changes: none is applied or journaled while it runs. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn)
    this.tail = run.catch(() => {})
    return run
  }

  private async record(entry: DevnetJournalEntry) {
    if (!this.journal) return
    await this.journal.append(entry)
    this.entries.push(entry)
  }

  async request(args: { method: string; params?: unknown[] }): Promise<unknown> {
    if (this.down) throw new DevnetDownError()
    const refusal = this.refusals.get(args.method)
    if (refusal) throw Object.assign(new Error(refusal.message), { code: refusal.code })
    if (REFUSED.has(args.method))
      throw Object.assign(new Error(`${args.method} is not supported by this devnet`), { code: -32601 })
    if (args.method === 'evm_setIntervalMining') return this.setIntervalMining(args.params?.[0])
    if (args.method === 'hardhat_mine') return this.mineEach(args.params ?? [])
    if (!STATEFUL.has(args.method)) return this.inner.request(args)
    if (SENDS.has(args.method)) return this.send(args)
    return this.apply(args)
  }

  private apply(args: { method: string; params?: unknown[] }): Promise<unknown> {
    const run = this.tail.then(() => this.applyNow(args))
    this.tail = run.catch(() => {})
    return run
  }

  /**
   * A transaction sent while others wait their turn goes into the same block as them: each block
   * the node keeps costs it about 15 KB of memory for as long as the process lives (its state at
   * that block), whatever the block holds, so blocks of several transactions make a busy chain
   * grow several times slower. Sends that find nothing waiting are mined alone, at once, as before.
   * Each send answers once its block is mined (a caller reads its receipt at once, as with
   * automine); one the node refuses outright (a nonce already used, no funds for gas) fails alone;
   * one that reverts in a shared block answers its hash, as a real node does, and its receipt
   * says it reverted. With automine off (a test mines by hand) sends go one by one, untouched.
   */
  private send(args: { method: string; params?: unknown[] }): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.batch) {
        this.batch.push({ args, resolve, reject })
        return
      }
      const batch = [{ args, resolve, reject }]
      this.batch = batch
      const run = this.tail.then(async () => {
        this.batch = undefined
        await this.mineTogether(batch)
      })
      this.tail = run.catch(() => {})
    })
  }

  private async mineTogether(batch: PendingSend[]) {
    const single = batch.length === 1 || !(await this.inner.request({ method: 'hardhat_getAutomine' }))
    if (single) {
      for (const s of batch) await this.applyNow(s.args).then(s.resolve, s.reject)
      return
    }
    const accepted: { send: PendingSend; result: unknown }[] = []
    await this.applyNow({ method: 'evm_setAutomine', params: [false] })
    try {
      for (const send of batch)
        await this.applyNow(send.args).then((result) => accepted.push({ send, result }), send.reject)
      if (accepted.length > 0) await this.applyNow({ method: 'evm_mine', params: [] })
    } catch (err) {
      for (const a of accepted) a.send.reject(err)
      accepted.length = 0
    } finally {
      await this.applyNow({ method: 'evm_setAutomine', params: [true] })
    }
    for (const a of accepted) a.send.resolve(a.result)
  }

  private async applyNow(args: { method: string; params?: unknown[] }): Promise<unknown> {
    const params = args.params ?? []
    const call =
      args.method === 'evm_revert'
        ? { method: args.method, params: [this.snapshotIds.get(String(params[0])) ?? params[0]] }
        : { method: args.method, params }
    const out = await applyCall(this.inner, call)
    if (out.firstBlockTime !== undefined)
      await this.record({ method: TIMESTAMP, params: [out.firstBlockTime] })
    if (args.method === 'evm_snapshot' && !('error' in out)) {
      // a new id of this run: never one an earlier run's id maps to
      this.snapshotIds.set(String(out.result), String(out.result))
      await this.record({ method: args.method, params: [out.result] })
    } else if (!('error' in out) || out.firstBlockTime !== undefined)
      await this.record({ method: args.method, params })
    if (out.firstBlockTime !== undefined) this.onBlock?.()
    if ('error' in out) throw out.error
    return out.result
  }

  /**
   * Hardhat's interval mining, run here so that each block is a journaled `evm_mine`: `ms` (0 =
   * off) or `[min, max]` for a random interval in that range. Blocks keep coming during a
   * simulated outage (`down`): the node is unreachable, not stopped.
   */
  private setIntervalMining(setting: unknown): true {
    const [min, max] = (Array.isArray(setting) ? setting : [setting, setting]).map((v) => Number(v))
    if (min === undefined || max === undefined || !Number.isInteger(min) || !Number.isInteger(max))
      throw invalidParams('evm_setIntervalMining takes a number of milliseconds or [min, max]')
    if (min < 0 || max < min) throw invalidParams('evm_setIntervalMining: need 0 <= min <= max')
    this.stopIntervalMining()
    if (min === 0) return true
    const epoch = this.intervalEpoch
    const next = () => {
      this.timer = setTimeout(tick, min + Math.floor(Math.random() * (max - min + 1)))
      this.timer.unref()
    }
    const tick = () => {
      if (epoch !== this.intervalEpoch) return
      void this.apply({ method: 'evm_mine', params: [] })
        .catch(() => {})
        .finally(() => {
          if (epoch === this.intervalEpoch) next()
        })
    }
    next()
    return true
  }

  /**
   * `hardhat_mine` as one `evm_mine` per block, all in one turn: for a count above two, EDR mines
   * "reserved" blocks whose `parentHash` is not the hash of the block before them, a chain no real
   * node serves (a watcher that follows parent hashes rightly stops there). `interval`: seconds
   * between the blocks' timestamps, as Hardhat's.
   */
  private mineEach(params: unknown[]): Promise<null> {
    const count = params[0] === undefined || params[0] === null ? 1n : BigInt(params[0] as string)
    const interval = params[1] === undefined || params[1] === null ? undefined : BigInt(params[1] as string)
    if (count < 0n || count > 100_000n || (interval !== undefined && interval < 1n))
      throw invalidParams('hardhat_mine takes a count (0 to 100000) and an interval of at least 1 s')
    const run = this.tail.then(async () => {
      for (let i = 0n; i < count; i++) {
        const params: unknown[] = []
        if (interval !== undefined && i > 0n) {
          const latest = (await this.inner.request({
            method: 'eth_getBlockByNumber',
            params: ['latest', false],
          })) as { timestamp: Hex }
          params.push(toHex(BigInt(latest.timestamp) + interval))
        }
        await this.applyNow({ method: 'evm_mine', params })
      }
      return null
    })
    this.tail = run.catch(() => {})
    return run
  }

  stopIntervalMining(): void {
    this.intervalEpoch++
    clearTimeout(this.timer)
    this.timer = undefined
  }

  /** resolves when every state change so far is applied and journaled */
  idle(): Promise<unknown> {
    return this.tail
  }
}

/**
 * Replays journal entries on a node built from the same genesis. An entry the node now refuses is
 * reported (the rebuilt chain may then differ from the journaled one); one that fails but mines,
 * as it did the first time (a reverted transaction), is not. Returns the journaled snapshot ids
 * with the ids the node gave the same snapshots now.
 */
export async function replayJournal(
  node: Eip1193,
  entries: DevnetJournalEntry[],
  onWarning?: (message: string) => void,
): Promise<Map<string, string>> {
  const snapshotIds = new Map<string, string>()
  for (const entry of entries) {
    if (isState(entry)) {
      await applyState(node, entry.params[0])
      continue
    }
    const call =
      entry.method === 'evm_snapshot'
        ? { method: entry.method, params: [] }
        : entry.method === 'evm_revert'
          ? { method: entry.method, params: [snapshotIds.get(String(entry.params[0])) ?? entry.params[0]] }
          : { method: entry.method, params: entry.params }
    // Called directly, without applyCall's look at the head before and after (three calls more
    // per entry, which made most of a long replay's time): the journal already holds each block's
    // timestamp, and only a failure needs a look at whether it mined all the same.
    const before = call.method === 'eth_sendTransaction' ? await head(node) : undefined
    try {
      const result = await node.request(call)
      if (entry.method === 'evm_snapshot') snapshotIds.set(String(entry.params[0]), String(result))
    } catch (error) {
      if (!(await minedAnyway(node, call, before)))
        onWarning?.(`devnet replay: ${entry.method} refused: ${(error as Error).message.split('\n')[0]}`)
    }
  }
  return snapshotIds
}

/** Whether a replayed call that failed mined all the same, as a reverted transaction does. */
async function minedAnyway(node: Eip1193, call: { method: string; params: unknown[] }, before?: bigint) {
  if (call.method === 'eth_sendRawTransaction') {
    const hash = keccak256(call.params[0] as Hex)
    return (await node.request({ method: 'eth_getTransactionReceipt', params: [hash] })) != null
  }
  return before !== undefined && (await head(node)) > before
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
