// What the watcher reads from the chain, through the adapter only: the blocks of a range (each
// block once per pass), the token Transfer logs of the range (checked against the blocks' logs
// blooms), and the receipts of the transactions that touch custodial addresses. Nothing here
// writes or decides anything.
import type {
  ChainAdapter,
  ChainBlock,
  Confirmations,
  TransferReceipt,
} from '../../../platform/chain/types.ts'
import type { FetchedRange } from './types.ts'

/** blocks (and receipts) read at the same time */
const CONCURRENCY = 8

const json = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))

/** The chain moved under the read (a block or log of the range was replaced): read it again. */
export class RangeChangedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RangeChangedError'
  }
}

/** The range's logs disagree with a block's bloom, even asked again and by hash: read it later. */
export class RangeUnverifiedError extends RangeChangedError {
  constructor(
    readonly block: bigint,
    reason: string,
  ) {
    super(`block ${block}: ${reason}; read again later`)
    this.name = 'RangeUnverifiedError'
  }
}

/**
 * The newest block with `confirmations` blocks on top of it counted (itself included), from the
 * lowest recent head of the healthy providers, or the chain's finalized block.
 */
export function safeHead(chain: ChainAdapter, confirmations: Confirmations): Promise<bigint> {
  return chain.confirmedHead(confirmations)
}

async function inBatches<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += CONCURRENCY)
    out.push(...(await Promise.all(items.slice(i, i + CONCURRENCY).map(fn))))
  return out
}

/**
 * Blocks `from..to` with their transactions and the token Transfer logs of the same blocks. The
 * blocks must form one chain and the logs must belong to them; otherwise RangeChangedError. The
 * logs are taken only where they agree with the blocks' blooms (no extra read while they do):
 * when a block stays doubtful, the range ends before it (RangeUnverifiedError when it is the
 * first), so the cursor never moves past a block whose logs may be missing.
 */
export async function fetchRange(chain: ChainAdapter, from: bigint, to: bigint): Promise<FetchedRange> {
  const numbers: bigint[] = []
  for (let n = from; n <= to; n++) numbers.push(n)
  const read = await inBatches(numbers, (n) => chain.getBlock(n))
  const blocks: ChainBlock[] = []
  read.forEach((block, i) => {
    if (!block) throw new RangeChangedError(`block ${numbers[i]} is not available yet`)
    const prev = blocks[blocks.length - 1]
    if (prev && block.parentHash.toLowerCase() !== prev.hash.toLowerCase())
      throw new RangeChangedError(`block ${block.number} does not follow block ${prev.number}`)
    blocks.push(block)
  })
  const hashOf = new Map(blocks.map((b) => [b.number, b.hash.toLowerCase()]))
  const verified = await chain.verifiedTokenTransfers(blocks)
  if (verified.unverified && verified.unverified.block <= from)
    throw new RangeUnverifiedError(verified.unverified.block, verified.unverified.reason)
  const kept = verified.unverified ? blocks.filter((b) => b.number <= verified.verifiedTo) : blocks
  for (const t of verified.transfers)
    if (hashOf.get(t.blockNumber) !== t.blockHash.toLowerCase())
      throw new RangeChangedError(`a log of block ${t.blockNumber} belongs to another block`)
  return {
    from,
    to: verified.unverified ? verified.verifiedTo : to,
    blocks: kept,
    tokenTransfers: verified.transfers,
  }
}

/** Receipts of `hashes` (lower case), keyed by lower-case hash. Each must exist (it was mined). */
export async function fetchReceipts(
  chain: ChainAdapter,
  hashes: readonly string[],
): Promise<Map<string, TransferReceipt>> {
  const list = [...new Set(hashes.map((h) => h.toLowerCase()))]
  const receipts = await inBatches(list, (h) => chain.getReceipt(h as `0x${string}`))
  const out = new Map<string, TransferReceipt>()
  receipts.forEach((r, i) => {
    if (!r) throw new RangeChangedError(`no receipt yet for transaction ${list[i]}`)
    out.set(list[i]!, r)
  })
  return out
}

/** The receipt as the JSON text shown in a transaction's `responseData` (hash, block, gas, logs). */
export function receiptText(r: TransferReceipt): string {
  return json({
    transactionHash: r.hash,
    blockNumber: r.blockNumber,
    blockHash: r.blockHash,
    from: r.from.toLowerCase(),
    to: r.to?.toLowerCase() ?? null,
    status: r.status,
    gasUsed: r.gasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    logs: r.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: l.logIndex })),
  })
}
