// When the devnet compacts its journal, and what the service is asked first: every `everyBlocks`
// journaled blocks, in the turn of state changes (nothing is mined or journaled meanwhile), the
// journal up to the highest block every reader is done with becomes one state entry (see
// devnet-compaction.ts). Readers: the deposit watcher (its cursor) and the outgoing transfers still
// waiting for a receipt (the base stays below the block of any of their transactions). After a
// periodic compaction the live EVM is rebuilt from the journal and swapped in (devnet-swap.ts). At
// start, after a replay of a compacted journal, the service records the rebuilt chain's hashes.
import { toHex } from 'viem'
import { type CaptureInput, captureState, findSplit } from './devnet-capture.ts'
import { CompactionRefused, isState, STATE_METHOD } from './devnet-compaction.ts'
import type { JournaledProvider } from './devnet-journal.ts'
import type { Eip1193 } from './rpc-server.ts'
import type { DevnetJournalEntry } from './types.ts'

/** What the service tells the devnet about its readers, and where it records a compaction. */
export interface DevnetCompaction {
  /** the watcher's cursor (null before its first scan) and the hashes of the transactions of
   * outgoing transfers that still wait for their receipt */
  readers(chainId: string): Promise<{ cursor: bigint | null; openTxHashes: string[] }>
  /** the block numbers whose hashes the service keeps (rebased after a rebuild) */
  recordedBlocks(chainId: string): Promise<bigint[]>
  /** in ONE database transaction: the journal becomes `entries`, the hashes kept become `hashes` */
  commit(chainId: string, entries: DevnetJournalEntry[], hashes: Map<bigint, string>): Promise<void>
  /** journaled blocks between two compactions (default 1,000) */
  everyBlocks?: number
  /** the fewest blocks a compaction of its own (periodic, at close) takes off (default 100) */
  minBlocks?: number
  /** after each periodic compaction, rebuild the live EVM from the compacted journal and swap it
   * in (devnet-swap.ts), so that the running process lets go of the blocks below the base
   * (default true) */
  swapEvm?: boolean
  /** swap only when the blocks the running EVM holds above its base are at least this many times
   * the accounts, token balances and allowances a rebuild carries (default 1; 0: always) */
  swapBlocksPerCarried?: number
}

export const DEFAULT_COMPACTION_BLOCKS = 1000
export const DEFAULT_COMPACTION_MIN_BLOCKS = 100

export interface CompactorOptions {
  chainId: string
  port: DevnetCompaction
  node: Eip1193
  provider: JournaledProvider
  bootBlocks: bigint
  known: CaptureInput['known']
  tokens: CaptureInput['tokens']
  onWarning?: ((message: string) => void) | undefined
  onInfo?: ((message: string, details: Record<string, unknown>) => void) | undefined
  /** run in the same turn after a periodic compaction committed (the swap of the live EVM) */
  afterCompaction?: (() => Promise<void>) | undefined
}

export function startCompactor(o: CompactorOptions) {
  const every = o.port.everyBlocks ?? DEFAULT_COMPACTION_BLOCKS
  const least = BigInt(o.port.minBlocks ?? DEFAULT_COMPACTION_MIN_BLOCKS)
  let blocks = 0
  let lastRefusal = ''
  const compactNow = async (minBlocks: bigint): Promise<{ base: bigint } | { refused: string } | null> => {
    const entries = o.provider.entries
    const previous = isState(entries[0]) ? entries[0].params[0] : undefined
    const prevBase = previous ? BigInt(previous.base) : o.bootBlocks
    const { cursor, openTxHashes } = await o.port.readers(o.chainId)
    if (cursor === null) return null
    let floor = cursor
    for (const hash of openTxHashes) {
      const receipt = (await o.node.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as {
        blockNumber: string
      } | null
      if (receipt) floor = floor < BigInt(receipt.blockNumber) - 1n ? floor : BigInt(receipt.blockNumber) - 1n
    }
    if (floor <= prevBase || floor - prevBase < minBlocks) return null
    try {
      const split = findSplit(entries, prevBase, floor)
      const state = await captureState({
        node: o.node,
        entries,
        split,
        previous,
        bootBlocks: o.bootBlocks,
        known: o.known,
        tokens: o.tokens,
      })
      const next: DevnetJournalEntry[] = [
        { method: STATE_METHOD, params: [state] },
        ...entries.slice(split.index),
      ]
      const started = performance.now()
      await o.port.commit(o.chainId, next, new Map())
      o.onInfo?.('devnet journal compacted', {
        base: Number(floor),
        entries: next.length,
        before: entries.length,
        accounts: state.accounts.length,
        commitMs: Math.round(performance.now() - started),
      })
      o.provider.entries = next
      return { base: floor }
    } catch (err) {
      if (!(err instanceof CompactionRefused)) throw err
      if (err.message !== lastRefusal) o.onWarning?.(`devnet journal not compacted: ${err.message}`)
      lastRefusal = err.message
      return { refused: err.message }
    }
  }
  o.provider.onBlock = () => {
    if (++blocks < every) return
    blocks = 0
    void o.provider
      .exclusive(async () => {
        const done = await compactNow(least)
        if (done && 'base' in done) await o.afterCompaction?.()
      })
      .catch((err) => o.onWarning?.(`devnet compaction failed: ${String(err)}`))
  }
  return {
    /** compacts now (in the turn of state changes): the base reached, a refusal, or null */
    compact: () => o.provider.exclusive(() => compactNow(1n)),
    /** the same, unless it would take off fewer than `minBlocks` blocks (at close) */
    compactIfWorth: () => o.provider.exclusive(() => compactNow(least)),
  }
}

/**
 * After the replay of a journal whose state entry says the service's recorded hashes are of the
 * chain before the compaction: records the rebuilt chain's hashes of those blocks and clears the
 * mark, in one transaction. Returns the journal as it now stands.
 */
export async function rebaseAfterReplay(
  chainId: string,
  port: DevnetCompaction,
  node: Eip1193,
  entries: DevnetJournalEntry[],
): Promise<DevnetJournalEntry[]> {
  const first = entries[0]
  if (!isState(first) || !first.params[0].rebase) return entries
  const head = BigInt((await node.request({ method: 'eth_blockNumber' })) as string)
  const hashes = new Map<bigint, string>()
  for (const n of await port.recordedBlocks(chainId)) {
    if (n > head) continue
    const block = (await node.request({ method: 'eth_getBlockByNumber', params: [toHex(n), false] })) as {
      hash: string
    }
    hashes.set(n, block.hash)
  }
  const next = [
    { method: STATE_METHOD, params: [{ ...first.params[0], rebase: false }] },
    ...entries.slice(1),
  ]
  await port.commit(chainId, next, hashes)
  return next
}
