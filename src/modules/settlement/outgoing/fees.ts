// The fee policy of outgoing transfers. Fees come from the chain's estimate (the node's fee
// history: the next block's base fee, the recent blocks' median tip, and twice the base fee plus
// the tip as the most per gas). A coin may have a maximum per gas (`maxFeePerGasGwei` in the
// coins configuration): a transfer never signs above it, and while the network asks more than it
// (next base fee + tip) the transfer waits, says so on its row (`waiting_for_fee`, shown to
// operators and counted in metrics) and in the log, and is looked at again every `feeRecheckMs`.
// A replacement that would need more than the maximum is not made: the pending transaction stays
// and is broadcast again until the fee falls. What users are charged is not touched here: the
// platform pays the gas.
import type { FeeWait } from '../../../db/tables/withdrawals.ts'
import type { FeeEstimate } from '../../../platform/chain/types.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import type { SenderContext } from './types.ts'

const min = (a: bigint, b: bigint) => (a < b ? a : b)

/** The most a transfer of `coin` may pay per gas, when its coin has a maximum. */
export function feeCapOf(s: SenderContext, coin: string): bigint | undefined {
  return s.deps.chain.coins.find((c) => c.reference === coin)?.maxFeePerGas
}

/** What a transaction pays per gas in the next block: its base fee plus the tip (or the gas price). */
export function priceNow(fees: FeeEstimate): bigint {
  if (fees.type === 'legacy') return fees.gasPrice
  // An estimate that does not name the base fee follows the usual rule: max = 2 × base + tip.
  const base = fees.baseFeePerGas ?? (fees.maxFeePerGas - fees.maxPriorityFeePerGas) / 2n
  return base + fees.maxPriorityFeePerGas
}

/** The most per gas a transaction signed with `fees` may pay. */
export const perGasOf = (fees: FeeEstimate) => (fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice)

/**
 * The fees to sign with under the maximum `cap`: the estimate with its most per gas (and tip)
 * lowered to the cap; undefined when the network asks more than the cap now.
 */
export function underCap(fees: FeeEstimate, cap: bigint | undefined): FeeEstimate | undefined {
  if (cap === undefined) return fees
  if (priceNow(fees) > cap) return undefined
  if (fees.type === 'legacy') return fees
  const maxFeePerGas = min(fees.maxFeePerGas, cap)
  return { ...fees, maxFeePerGas, maxPriorityFeePerGas: min(fees.maxPriorityFeePerGas, maxFeePerGas) }
}

/**
 * Records that the transfer waits for the fee (`wait`), or that it no longer does (null). The
 * change is logged once each way; a transfer that keeps waiting keeps its first `since`.
 */
export async function setFeeWait(
  s: SenderContext,
  row: OutgoingRow,
  wait: { feePerGas: bigint; maxFeePerGas: bigint; step: FeeWait['step'] } | null,
) {
  const { db, clock, log } = s.deps
  const about = {
    transferId: row.id,
    purpose: row.purpose,
    referenceId: row.referenceId,
    coin: row.coin,
    amount: row.amount,
  }
  if (!wait) {
    if (!row.waitingForFee) return
    await outgoingRepo.setFeeWait(db, row.id, null, clock.now())
    log.info(
      { ...about, since: row.waitingForFee.since, step: row.waitingForFee.step },
      'outgoing transfer resumes: the network fee is under the coin maximum again',
    )
    return
  }
  const value: FeeWait = {
    since: row.waitingForFee?.since ?? clock.now().toISOString(),
    feePerGas: wait.feePerGas.toString(),
    maxFeePerGas: wait.maxFeePerGas.toString(),
    step: wait.step,
  }
  await outgoingRepo.setFeeWait(db, row.id, value, clock.now())
  if (!row.waitingForFee || row.waitingForFee.step !== wait.step)
    log.warn(
      { ...about, feePerGas: value.feePerGas, maxFeePerGas: value.maxFeePerGas, step: wait.step },
      wait.step === 'sign'
        ? 'outgoing transfer waits: the network fee is above the coin maximum'
        : 'outgoing transfer not replaced: the replacement would pay more than the coin maximum; its pending transaction stays',
    )
}
