// Transfers into and out of addresses over a range of blocks: native value from the blocks'
// transactions (successful ones only, by receipt) and ERC-20 Transfer logs of the configured tokens.
import { erc20Abi, getAddress, type Hash, type PublicClient, parseEventLogs } from 'viem'
import type {
  ChainBlock,
  ChainCoin,
  NativeTransfer,
  TokenTransfer,
  TransferFilter,
  TransferReceipt,
} from './types.ts'

/** Blocks per eth_getLogs call */
const LOG_RANGE = 2_000n
/** Blocks read at once for native transfers */
const BLOCK_CONCURRENCY = 8

const lowerSet = (it: Iterable<string> | undefined): Set<string> | undefined =>
  it === undefined ? undefined : new Set([...it].map((a) => a.toLowerCase()))

export function transferScans(d: {
  client: PublicClient
  coins: ChainCoin[]
  byToken: Map<string, ChainCoin>
  coin: (reference: string) => ChainCoin
  call: <T>(what: string, fn: () => Promise<T>) => Promise<T>
  getBlock: (number: bigint) => Promise<ChainBlock | null>
  getReceipt: (hash: Hash) => Promise<TransferReceipt | null>
}) {
  const { client, coins, byToken, coin, call, getBlock, getReceipt } = d

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

  async function tokenTransfers(
    fromBlock: bigint,
    toBlock: bigint,
    o: TransferFilter & { coins?: string[] } = {},
  ): Promise<TokenTransfer[]> {
    const wanted = (o.coins ?? coins.filter((c) => c.isToken).map((c) => c.reference)).map(coin)
    const addresses = wanted.filter((c) => c.isToken).map((c) => c.contractAddress!)
    if (addresses.length === 0 || toBlock < fromBlock) return []
    const toSet = lowerSet(o.to)
    const fromSet = lowerSet(o.from)
    const out: TokenTransfer[] = []
    for (let start = fromBlock; start <= toBlock; start += LOG_RANGE) {
      const end = start + LOG_RANGE - 1n < toBlock ? start + LOG_RANGE - 1n : toBlock
      const logs = await call('get logs', () =>
        client.getLogs({ address: addresses, fromBlock: start, toBlock: end }),
      )
      const events = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs, strict: true })
      for (const ev of events) {
        if (ev.removed || ev.blockNumber === null || ev.transactionHash === null) continue
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
    }
    out.sort((a, b) =>
      a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
    )
    return out
  }

  return { nativeTransfers, tokenTransfers }
}
