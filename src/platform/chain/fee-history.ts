// EIP-1559 fees from the node's fee history (eth_feeHistory) rather than one block: the next
// block's base fee, and as the tip the median of what the recent blocks' transactions paid (the
// 50th percentile of each block that held any), so one odd block moves neither much.
import type { PublicClient } from 'viem'
import type { FeeEstimate } from './types.ts'

/** how many recent blocks the tip is taken from */
export const FEE_HISTORY_BLOCKS = 10
/** the percentile of each block's tips that counts */
export const TIP_PERCENTILE = 50
/** the tip when no recent block tells one and the node has no suggestion: 1 gwei */
export const FALLBACK_TIP = 1_000_000_000n

export interface FeeHistory {
  /** one per block of the range, and one more: the next block's */
  baseFeePerGas: bigint[]
  gasUsedRatio: number[]
  reward?: bigint[][] | undefined
}

function median(values: bigint[]): bigint {
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

/**
 * The fees to sign with, from a fee history: the tip is the median of the recent blocks' tips
 * (`fallbackTip` when no block held a transaction that paid one), and the most per gas is twice
 * the next block's base fee plus the tip, which stays valid through six full blocks of base-fee
 * growth (+12.5 % each). Undefined when the chain has no base fee (not EIP-1559).
 */
export function feesFromHistory(history: FeeHistory, fallbackTip: bigint): FeeEstimate | undefined {
  const next = history.baseFeePerGas.at(-1)
  if (next === undefined || history.baseFeePerGas.every((b) => b === 0n)) return undefined
  const tips = (history.reward ?? [])
    .filter((_, i) => (history.gasUsedRatio[i] ?? 0) > 0)
    .map((r) => r[0] ?? 0n)
    .filter((t) => t > 0n)
  const tip = tips.length > 0 ? median(tips) : fallbackTip
  return { type: 'eip1559', maxFeePerGas: next * 2n + tip, maxPriorityFeePerGas: tip, baseFeePerGas: next }
}

/** The fees to sign with now, from the node's fee history (legacy gas price on a chain without). */
export async function estimateFeesFromHistory(client: PublicClient): Promise<FeeEstimate> {
  const history = await client.getFeeHistory({
    blockCount: FEE_HISTORY_BLOCKS,
    rewardPercentiles: [TIP_PERCENTILE],
    blockTag: 'latest',
  })
  const suggested = async () => {
    try {
      return await client.estimateMaxPriorityFeePerGas()
    } catch {
      return FALLBACK_TIP
    }
  }
  const quiet = !(history.reward ?? []).some(
    (r, i) => (history.gasUsedRatio[i] ?? 0) > 0 && (r[0] ?? 0n) > 0n,
  )
  const fees = feesFromHistory(history, quiet ? await suggested() : FALLBACK_TIP)
  return fees ?? { type: 'legacy', gasPrice: await client.getGasPrice() }
}
