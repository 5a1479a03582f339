// The escrow quote: pure integer arithmetic over USD cents, coin base units and decimal-string
// rates. Nothing here touches floating point except the final conversion of an amount that is
// known to be exactly representable as a JSON number.

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

/** A non-negative decimal string → digits and scale: "35.12" → { digits: 3512n, scale: 2 }. */
export function parseDecimal(value: string): { digits: bigint; scale: number } {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(value.trim())
  if (!m) throw new QuoteError('rate', `not a decimal: ${value}`)
  const frac = m[2] ?? ''
  return { digits: BigInt(`${m[1]}${frac}`), scale: frac.length }
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b
const ceilTo = (a: bigint, granule: bigint) => ceilDiv(a, granule) * granule
const pow10 = (n: number) => 10n ** BigInt(n)

/** A JSON number of USD → cents: positive, at most two decimals, no other limit. */
export function parseUsd(amount: number): bigint {
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0)
    throw new QuoteError('amount', 'amount must be a positive number of USD')
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(String(amount))
  if (!m) throw new QuoteError('amount', 'amount must be USD with at most two decimals')
  const cents = BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0') || '0')
  if (cents === 0n) throw new QuoteError('amount', 'amount must be a positive number of USD')
  return cents
}

/** Cents → USD text with exactly two decimals ("105.00"), as decimal prices are shown as text. */
export const centsToText = (cents: bigint) => `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`

/**
 * A JSON number of USD → cents. Accepts at most two decimals, positive, within the limits;
 * anything else is a QuoteError('amount').
 */
export function usdToCents(amount: number): bigint {
  const cents = parseUsd(amount)
  if (cents < MIN_ESCROW_CENTS) throw new QuoteError('amount', 'amount must be at least 1.00 USD')
  if (cents > MAX_ESCROW_CENTS) throw new QuoteError('amount', 'amount must be at most 1000000000 USD')
  return cents
}

/** Base units → exact decimal text in whole coins, without trailing zeros. */
export function unitsToDecimal(units: bigint, decimals: number): string {
  const s = units.toString().padStart(decimals + 1, '0')
  const whole = s.slice(0, s.length - decimals)
  const frac = s.slice(s.length - decimals).replace(/0+$/, '')
  return frac ? `${whole}.${frac}` : whole
}

function significantDigits(units: bigint, decimals: number): number {
  return unitsToDecimal(units, decimals).replace('.', '').replace(/^0+/, '').length
}

/** Cents → a JSON number of dollars (always exact: at most 15 significant digits by the limits). */
export const centsToNumber = (cents: bigint) => Number(cents) / 100

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
  escrowCents: bigint
  /** the price in coin base units, rounded up to the shown precision */
  coinEscrowAmount: bigint
  /** the platform fee in coin base units, rounded up to the shown precision */
  expectedFee: bigint
  /** what the payer sends: coinEscrowAmount + expectedFee */
  amountToPay: bigint
  /** the fee in USD cents (expectedFee at the rate, half up) */
  usdFeeCents: bigint
  /** escrowAmount + usdFee, in cents */
  usdAmountCents: bigint
  /** decimals shown for the coin amounts (they are multiples of 10^(decimals - shownDecimals)) */
  shownDecimals: number
}

/** Cents of `units` base units at `rate` USD per coin, rounded half up. */
export function unitsToCents(units: bigint, decimals: number, rate: string): bigint {
  const { digits, scale } = parseDecimal(rate)
  const num = units * digits * 100n
  const den = pow10(decimals + scale)
  return (num * 2n + den) / (den * 2n)
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
  const rate = parseDecimal(input.rate)
  if (rate.digits === 0n) throw new QuoteError('rate', 'the coin has no USD price')
  const fee = parseDecimal(String(input.feePercent))
  if (!Number.isFinite(input.feePercent) || input.feePercent < 0)
    throw new QuoteError('rate', 'fee percent out of range')

  // price in base units = cents/100 ÷ (rate.digits / 10^rate.scale) × 10^decimals
  const rawEscrow = ceilDiv(cents * pow10(decimals + rate.scale), 100n * rate.digits)
  for (let shown = Math.min(decimals, MAX_SHOWN_DECIMALS); shown >= 0; shown--) {
    const granule = pow10(decimals - shown)
    const coinEscrowAmount = ceilTo(rawEscrow, granule)
    const expectedFee = ceilTo(ceilDiv(coinEscrowAmount * fee.digits, 100n * pow10(fee.scale)), granule)
    const amountToPay = coinEscrowAmount + expectedFee
    if (significantDigits(amountToPay, decimals) > MAX_SIGNIFICANT_DIGITS) continue
    const usdFeeCents = unitsToCents(expectedFee, decimals, input.rate)
    return {
      escrowCents: cents,
      coinEscrowAmount,
      expectedFee,
      amountToPay,
      usdFeeCents,
      usdAmountCents: cents + usdFeeCents,
      shownDecimals: shown,
    }
  }
  throw new QuoteError('too_large', 'the amount is too large to be paid in this coin')
}

/** Base units as a JSON number in whole coins: exact for quote amounts (see computeQuote). */
export function unitsToNumber(units: bigint, decimals: number): number {
  return Number(unitsToDecimal(units, decimals))
}
