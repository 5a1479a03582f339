// Whether a deposit is on the canonical chain now, with its confirmations: the check behind both
// the detection of deposits a reorganisation took back and an operator's "keep". Reads the chain
// only (no database, no transaction open): the receipt, then the block it names, so that a
// provider's stale receipt of a replaced block is not believed.
import type { ChainAdapter } from '../../../platform/chain/types.ts'

/** keccak256("Transfer(address,address,uint256)") */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'

export interface DepositOnChain {
  txHash: string
  /** -1 for native value */
  logIndex: number
  address: string
  coin: string
  amount: bigint
}

/** Where the deposit is now, or why it is not there. */
export type DepositState =
  | { state: 'confirmed'; blockNumber: bigint; blockHash: string }
  | { state: 'unconfirmed'; blockNumber: bigint }
  | { state: 'missing' }

const topicAddress = (topic: string | undefined) => (topic ? `0x${topic.slice(-40)}`.toLowerCase() : '')

/**
 * The deposit's state on the chain as it is now: `confirmed` when its transaction succeeded in a
 * block of the canonical chain at or below `safeHead` and still pays `amount` of `coin` to
 * `address`; `unconfirmed` when it is mined above it; `missing` otherwise (no receipt, reverted,
 * a receipt of a block the chain no longer has, or a transfer that no longer pays the address).
 */
export async function depositState(
  chain: ChainAdapter,
  d: DepositOnChain,
  safeHead: bigint,
): Promise<DepositState> {
  const receipt = await chain.getReceipt(d.txHash as `0x${string}`)
  if (receipt?.status !== 'success') return { state: 'missing' }
  const block = await chain.getBlock(receipt.blockNumber)
  if (!block || block.hash.toLowerCase() !== receipt.blockHash.toLowerCase()) return { state: 'missing' }
  const address = d.address.toLowerCase()
  if (d.logIndex < 0) {
    const tx = block.transactions.find((t) => t.hash.toLowerCase() === d.txHash.toLowerCase())
    if (!tx || tx.to?.toLowerCase() !== address || tx.value !== d.amount) return { state: 'missing' }
  } else {
    const token = chain.coin(d.coin).contractAddress?.toLowerCase()
    const pays = receipt.logs.some(
      (log) =>
        log.address.toLowerCase() === token &&
        log.topics[0]?.toLowerCase() === TRANSFER_TOPIC &&
        topicAddress(log.topics[2]) === address &&
        BigInt(log.data) === d.amount,
    )
    if (!pays) return { state: 'missing' }
  }
  if (receipt.blockNumber > safeHead) return { state: 'unconfirmed', blockNumber: receipt.blockNumber }
  return { state: 'confirmed', blockNumber: receipt.blockNumber, blockHash: block.hash }
}
