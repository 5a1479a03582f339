// The money of one release of an escrow (pure integer arithmetic): a part of the price in USD
// cents, or all that remains, becomes a payout and a fee in base units proportional to what is
// left. The last part takes whatever is left, so the parts always add up to the whole, to the
// unit, however the price was split.
import { shareOf } from '../../platform/money/index.ts'

export interface PartInput {
  /** USD cents of the price released by this part */
  cents: bigint
  /** USD cents of the price not released yet (the part's cents included) */
  remainingCents: bigint
  /** base units still owed to the receiver */
  payoutLeft: bigint
  /** base units of fee (network and platform) not released yet */
  feeLeft: bigint
}

export interface Part {
  payout: bigint
  fee: bigint
  /** true when this part releases all that remains */
  final: boolean
}

/**
 * The payout and fee of a part: `cents / remainingCents` of what is left of each, rounded down,
 * and exactly what is left for the last part. Throws on a part outside 1..remainingCents.
 */
export function planPart(input: PartInput): Part {
  const { cents, remainingCents, payoutLeft, feeLeft } = input
  if (cents <= 0n || cents > remainingCents) throw new RangeError('part outside what remains')
  if (payoutLeft < 0n || feeLeft < 0n) throw new RangeError('negative amount left')
  if (cents === remainingCents) return { payout: payoutLeft, fee: feeLeft, final: true }
  return {
    payout: shareOf(payoutLeft, cents, remainingCents),
    fee: shareOf(feeLeft, cents, remainingCents),
    final: false,
  }
}

/** The fee of a part split into the network fee (at most `networkFee`) and the platform's rest. */
export function splitFee(fee: bigint, networkFee: bigint): { network: bigint; platform: bigint } {
  const network = networkFee < fee ? networkFee : fee
  return { network, platform: fee - network }
}
