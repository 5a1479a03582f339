// Transfers into and out of addresses over a range of blocks: native value from the blocks'
// transactions (successful ones only, by receipt) and ERC-20 Transfer logs of the configured tokens,
// also as verified ranges (an answer checked against the blocks' logs blooms).
import {
  type Address,
  erc20Abi,
  getAddress,
  type Hash,
  type Log,
  type PublicClient,
  parseEventLogs,
} from 'viem'
import { suspiciousBlocks } from './bloom.ts'
import { isRangeLimit } from './errors.ts'
import type {
  ChainBlock,
  ChainCoin,
  NativeTransfer,
  TokenTransfer,
  TransferFilter,
  TransferReceipt,
  VerifiedTransfers,
} from './types.ts'

/** Blocks per eth_getLogs call, at most */
const LOG_RANGE = 2_000n
/** successful calls at a narrowed range before a wider one is tried again */
const WIDEN_AFTER = 50
/** Blocks read at once for native transfers */
const BLOCK_CONCURRENCY = 8

const lowerSet = (it: Iterable<string> | undefined): Set<string> | undefined =>
  it === undefined ? undefined : new Set([...it].map((a) => a.toLowerCase()))

export function transferScans(d: {
  client: PublicClient
  /** each provider on its own (several with EVM_RPC_URLS): the second opinions of a verified read */
  providers: readonly PublicClient[]
  coins: ChainCoin[]
  byToken: Map<string, ChainCoin>
  coin: (reference: string) => ChainCoin
  call: <T>(what: string, fn: () => Promise<T>) => Promise<T>
  getBlock: (number: bigint) => Promise<ChainBlock | null>
  getReceipt: (hash: Hash) => Promise<TransferReceipt | null>
}) {
  const { client, providers, coins, byToken, coin, call, getBlock, getReceipt } = d

  async function nativeTransfers(fromBlock: bigint, toBlock: bigint, filter: TransferFilter = {}) {
    const toSet = lowerSet(filter.to)
    const fromSet = lowerSet(filter.from)
    const out: NativeTransfer[] = []
    const nativeCoin = coins.find((c) => !c.isToken)
    if (!nativeCoin || toBlock < fromBlock) return out
    const numbers: bigint[] = []
    for (let n = fromBlock; n <= toBlock; n++) numbers.push(n)
    for (let i = 0; i < numbers.length; i += BLOCK_CONCURRENCY) {
      const blocks = await Promise.all(numbers.slice(i, i + BLOCK_CONCURRENCY).map((n) => getBlock(n)))
      for (const block of blocks) {
        if (!block) continue
        const candidates = block.transactions.filter(
          (tx) =>
            tx.to !== null &&
            tx.value > 0n &&
            (!toSet || toSet.has(tx.to.toLowerCase())) &&
            (!fromSet || fromSet.has(tx.from.toLowerCase())),
        )
        const receipts = await Promise.all(candidates.map((tx) => getReceipt(tx.hash)))
        candidates.forEach((tx, k) => {
          if (receipts[k]?.status !== 'success') return
          out.push({
            coin: nativeCoin.reference,
            hash: tx.hash,
            from: tx.from,
            to: tx.to!,
            amount: tx.value,
            blockNumber: block.number,
            blockHash: block.hash,
          })
        })
      }
    }
    return out
  }

  function tokensOf(references: readonly string[] | undefined): Address[] {
    const wanted = (references ?? coins.filter((c) => c.isToken).map((c) => c.reference)).map(coin)
    return wanted.filter((c) => c.isToken).map((c) => c.contractAddress!)
  }

  /**
   * Blocks per eth_getLogs call, per provider (the ranked fallback counts as one). Providers cap
   * the range or the number of results; a call refused for that is asked again over half the
   * range, down to single blocks, and the smaller range is kept for later calls. After
   * WIDEN_AFTER answers in a row it is doubled again (up to LOG_RANGE), so a cap that was lifted,
   * or a busy stretch of the chain that has passed, costs one refused call now and then.
   */
  const spans = new Map<PublicClient, { size: bigint; answered: number }>()
  const spanOf = (via: PublicClient) => spans.get(via)?.size ?? LOG_RANGE
  function answered(via: PublicClient) {
    const span = spans.get(via)
    if (!span || ++span.answered < WIDEN_AFTER) return
    const size = span.size * 2n
    if (size >= LOG_RANGE) spans.delete(via)
    else spans.set(via, { size, answered: 0 })
  }

  /** The raw logs of `addresses` in `fromBlock..toBlock`, in node-sized parts, from `via`. */
  async function rawLogs(via: PublicClient, addresses: Address[], fromBlock: bigint, toBlock: bigint) {
    const out: Log[] = []
    let start = fromBlock
    while (start <= toBlock) {
      const end = start + spanOf(via) - 1n < toBlock ? start + spanOf(via) - 1n : toBlock
      try {
        out.push(
          ...(await call('get logs', () =>
            via.getLogs({ address: addresses, fromBlock: start, toBlock: end }),
          )),
        )
      } catch (err) {
        if (end === start || !isRangeLimit(err)) throw err
        const half = (end - start + 1n) / 2n
        spans.set(via, { size: half < spanOf(via) ? half : spanOf(via), answered: 0 })
        continue
      }
      answered(via)
      start = end + 1n
    }
    return out
  }

  /** The Transfer events among `logs`, filtered, in chain order, each (block hash, index) once. */
  function toTransfers(logs: Log[], o: TransferFilter = {}): TokenTransfer[] {
    const toSet = lowerSet(o.to)
    const fromSet = lowerSet(o.from)
    const out: TokenTransfer[] = []
    const seen = new Set<string>()
    const events = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs, strict: true })
    for (const ev of events) {
      if (ev.removed || ev.blockNumber === null || ev.transactionHash === null) continue
      const once = `${ev.blockHash}:${ev.logIndex}`
      if (seen.has(once)) continue
      seen.add(once)
      const c = byToken.get(ev.address.toLowerCase())
      if (!c) continue
      if (toSet && !toSet.has(ev.args.to.toLowerCase())) continue
      if (fromSet && !fromSet.has(ev.args.from.toLowerCase())) continue
      out.push({
        coin: c.reference,
        token: c.contractAddress!,
        hash: ev.transactionHash,
        logIndex: ev.logIndex!,
        from: getAddress(ev.args.from),
        to: getAddress(ev.args.to),
        amount: ev.args.value,
        blockNumber: ev.blockNumber,
        blockHash: ev.blockHash!,
      })
    }
    out.sort((a, b) =>
      a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
    )
    return out
  }

  async function tokenTransfers(
    fromBlock: bigint,
    toBlock: bigint,
    o: TransferFilter & { coins?: string[] } = {},
  ): Promise<TokenTransfer[]> {
    const addresses = tokensOf(o.coins)
    if (addresses.length === 0 || toBlock < fromBlock) return []
    return toTransfers(await rawLogs(client, addresses, fromBlock, toBlock), o)
  }

  /**
   * The range's Transfer logs, accepted only when consistent with every block's bloom. An answer
   * that lacks the logs a bloom announces is not trusted: the range is asked again, then from
   * each provider on its own, then each doubtful block by its hash (EIP-234: a node that does not
   * have the block answers an error, never an empty list). A block still doubtful stops the
   * answer before it. Cost: nothing beyond one eth_getLogs while the answers agree with the
   * blooms (the caller has read the blocks already).
   */
  async function verifiedTokenTransfers(
    blocks: readonly ChainBlock[],
    o: { coins?: string[] } = {},
  ): Promise<VerifiedTransfers> {
    const addresses = tokensOf(o.coins)
    const first = blocks[0]
    const last = blocks[blocks.length - 1]
    if (!first || !last || addresses.length === 0)
      return { transfers: [], verifiedTo: last?.number ?? -1n, unverified: null }
    const hashOf = new Map(blocks.map((b) => [b.number, b.hash.toLowerCase()]))
    const logs: Log[] = []
    const have = new Set<string>()
    const add = (list: Log[]) => {
      for (const l of list) {
        const key = `${l.blockHash}:${l.logIndex}`
        if (have.has(key)) continue
        have.add(key)
        logs.push(l)
      }
    }
    const doubtful = () => suspiciousBlocks(blocks, addresses, logs)
    add(await rawLogs(client, addresses, first.number, last.number))
    let suspects = doubtful()
    // Once more through the ranked providers, then from each provider on its own.
    const second: (() => Promise<Log[]>)[] = [
      () => rawLogs(client, addresses, suspects[0]!, suspects[suspects.length - 1]!),
      ...(providers.length > 1
        ? providers.map((p) => () => rawLogs(p, addresses, suspects[0]!, suspects[suspects.length - 1]!))
        : []),
    ]
    for (const read of second) {
      if (suspects.length === 0) break
      try {
        add(await read())
      } catch {
        // an unavailable provider is no answer; the next one is asked
      }
      suspects = doubtful()
    }
    // Split down to single blocks, asked by hash: a lagging node cannot answer those with [].
    let unverified: VerifiedTransfers['unverified'] = null
    for (const n of suspects) {
      const blockHash = hashOf.get(n) as Hash
      let answered = false
      for (const via of [client, ...(providers.length > 1 ? providers : [])]) {
        try {
          add(await call('get logs', () => via.getLogs({ address: addresses, blockHash })))
          answered = true
          break
        } catch {
          // the next provider is asked
        }
      }
      if (!answered) {
        unverified = { block: n, reason: 'its bloom announces a token transfer no provider would list' }
        break
      }
    }
    const verifiedTo = unverified ? unverified.block - 1n : last.number
    return {
      transfers: toTransfers(logs.filter((l) => l.blockNumber !== null && l.blockNumber <= verifiedTo)),
      verifiedTo,
      unverified,
    }
  }

  return { nativeTransfers, tokenTransfers, verifiedTokenTransfers }
}
