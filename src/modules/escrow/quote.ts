// The escrow quote: the price limits and the coin amounts a payer is asked for, in pure integer
// arithmetic over USD cents, coin base units and decimal-string rates (platform/money).
import {
  AmountError,
  asCents,
  asUnits,
  type BaseUnits,
  ceilToMultiple,
  centsToUnits,
  divide,
  parseScaled,
  pow10,
  type Scaled,
  significantDigits,
  type UsdCents,
  unitsToCents,
  usdNumberToCents,
} from '../../platform/money/index.ts'

/** The smallest job price accepted, in USD cents ($1.00). */
export const MIN_ESCROW_CENTS = 100n
/** The largest job price accepted, in USD cents ($1,000,000,000.00). */
export const MAX_ESCROW_CENTS = 100_000_000_000n
/** Coin amounts are shown with at most this many decimals. */
export const MAX_SHOWN_DECIMALS = 8
/**
 * A decimal with at most 15 significant digits survives the trip through an IEEE double and back
 * to its shortest text unchanged, so the JSON number a client reads is the exact amount.
 */
export const MAX_SIGNIFICANT_DIGITS = 15

export class QuoteError extends Error {
  constructor(
    readonly reason: 'amount' | 'rate' | 'too_large',
    message: string,
  ) {
    super(message)
    this.name = 'QuoteError'
  }
}

/**
 * A JSON number of USD → cents. Accepts at most two decimals, positive, within the limits;
 * anything else is a QuoteError('amount').
 */
export function usdToCents(amount: number): UsdCents {
  let cents: UsdCents
  try {
    cents = usdNumberToCents(amount)
  } catch (err) {
    if (err instanceof AmountError) throw new QuoteError('amount', err.message)
    throw err
  }
  if (cents < MIN_ESCROW_CENTS) throw new QuoteError('amount', 'amount must be at least 1.00 USD')
  if (cents > MAX_ESCROW_CENTS) throw new QuoteError('amount', 'amount must be at most 1000000000 USD')
  return cents
}

/** A rate or the fee percentage as digits and scale; a QuoteError('rate') when it is not one. */
function scaled(value: string): Scaled {
  try {
    return parseScaled(value)
  } catch (err) {
    if (err instanceof AmountError) throw new QuoteError('rate', err.message)
    throw err
  }
}

export interface QuoteInput {
  /** the job price in USD cents */
  cents: bigint
  /** USD per whole coin, a decimal string */
  rate: string
  /** decimals of the coin's base unit */
  decimals: number
  /** the platform fee in percent (e.g. 5, 2.5) */
  feePercent: number
}

export interface Quote {
  /** the job price in USD cents (escrowAmount) */
  escrowCents: UsdCents
  /** the price in coin base units, rounded up to the shown precision */
  coinEscrowAmount: BaseUnits
  /** the platform fee in coin base units, rounded up to the shown precision */
  expectedFee: BaseUnits
  /** what the payer sends: coinEscrowAmount + expectedFee */
  amountToPay: BaseUnits
  /** the fee in USD cents (expectedFee at the rate, half up) */
  usdFeeCents: UsdCents
  /** escrowAmount + usdFee, in cents */
  usdAmountCents: UsdCents
  /** decimals shown for the coin amounts (they are multiples of 10^(decimals - shownDecimals)) */
  shownDecimals: number
}

/**
 * The quote of a job price. Every coin amount is rounded UP (the payer never pays less than the
 * price) to a precision that keeps it exact as a JSON number: at most 8 decimals and at most 15
 * significant digits. A price that would need more than 15 digits before the decimal point in
 * this coin is refused (QuoteError 'too_large').
 */
export function computeQuote(input: QuoteInput): Quote {
  const { cents, decimals } = input
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36)
    throw new QuoteError('rate', 'coin decimals out of range')
  const rate = scaled(input.rate)
  if (rate.digits === 0n) throw new QuoteError('rate', 'the coin has no USD price')
  const fee = scaled(String(input.feePercent))
  if (!Number.isFinite(input.feePercent) || input.feePercent < 0)
    throw new QuoteError('rate', 'fee percent out of range')

  const rawEscrow = centsToUnits(cents, decimals, input.rate, 'ceil')
  for (let shown = Math.min(decimals, MAX_SHOWN_DECIMALS); shown >= 0; shown--) {
    const granule = pow10(decimals - shown)
    const coinEscrowAmount = asUnits(ceilToMultiple(rawEscrow, granule))
    const expectedFee = asUnits(
      ceilToMultiple(divide(coinEscrowAmount * fee.digits, 100n * pow10(fee.scale), 'ceil'), granule),
    )
    const amountToPay = asUnits(coinEscrowAmount + expectedFee)
    if (significantDigits(amountToPay, decimals) > MAX_SIGNIFICANT_DIGITS) continue
    const usdFeeCents = unitsToCents(expectedFee, decimals, input.rate, 'halfUp')
    return {
      escrowCents: asCents(cents),
      coinEscrowAmount,
      expectedFee,
      amountToPay,
      usdFeeCents,
      usdAmountCents: asCents(cents + usdFeeCents),
      shownDecimals: shown,
    }
  }
  throw new QuoteError('too_large', 'the amount is too large to be paid in this coin')
}
