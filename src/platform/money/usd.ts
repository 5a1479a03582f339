// USD amounts as integer cents, and conversions between coin base units and cents at a rate
// (a decimal string of USD per whole coin).
import { AmountError, parseScaled } from './decimal.ts'
import { divide, pow10, type Rounding } from './rounding.ts'
import { asUnits, type BaseUnits, formatUnits } from './units.ts'

declare const usdCents: unique symbol
/** An amount of US dollars in whole cents. */
export type UsdCents = bigint & { readonly [usdCents]: true }

/** Marks a bigint read from a row as cents. */
export const asCents = (value: bigint): UsdCents => value as UsdCents

/** USD text: whole dollars and at most two decimals, e.g. `150`, `150.5`, `150.50`. */
const USD_TEXT = /^(\d+)(?:\.(\d{1,2}))?$/

/**
 * USD text (surrounding whitespace allowed; no sign, no exponent, at most two decimals) → cents,
 * or null when it is not such text.
 */
export function usdTextToCents(text: string): UsdCents | null {
  const m = USD_TEXT.exec(text.trim())
  return m ? asCents(BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'))) : null
}

/**
 * A JSON number of USD → cents: positive, at most two decimals in its shortest text (so
 * `0.1 + 0.2`, `1e-7` and `1e21` are refused, never rounded). Throws AmountError with the
 * sentence a client reads.
 */
export function usdNumberToCents(amount: number): UsdCents {
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0)
    throw new AmountError('amount must be a positive number of USD')
  const cents = usdTextToCents(String(amount))
  if (cents === null) throw new AmountError('amount must be USD with at most two decimals')
  if (cents === 0n) throw new AmountError('amount must be a positive number of USD')
  return cents
}

/** Cents → USD text with exactly two decimals ("105.00", "-0.50"). */
export function formatCents(cents: bigint): string {
  const negative = cents < 0n
  const abs = negative ? -cents : cents
  return `${negative ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`
}

/** Cents → a JSON number of dollars (exact below 2^53 cents' worth of 15 significant digits). */
export const centsToNumber = (cents: bigint): number => Number(cents) / 100

/**
 * USD cents of `amount` base units of a coin with `decimals` places at `rate` USD per whole coin;
 * half up to the cent unless another rule is named.
 */
export function unitsToCents(
  amount: bigint,
  decimals: number,
  rate: string,
  rounding: Rounding = 'halfUp',
): UsdCents {
  const { digits, scale } = parseScaled(rate)
  return asCents(divide(amount * digits * 100n, pow10(decimals + scale), rounding))
}

/**
 * Base units of a coin with `decimals` places worth `cents` at `rate` USD per whole coin; rounded
 * up unless another rule is named (a payer never pays less than the price). Throws RangeError
 * for a zero rate.
 */
export function centsToUnits(
  cents: bigint,
  decimals: number,
  rate: string,
  rounding: Rounding = 'ceil',
): BaseUnits {
  const { digits, scale } = parseScaled(rate)
  if (digits === 0n) throw new RangeError('the coin has no USD price')
  return asUnits(divide(cents * pow10(decimals + scale), 100n * digits, rounding))
}

/**
 * Base units of one coin → base units of another of the same USD value, through both coins' USD
 * rates (e.g. a network fee in wei as token units); rounded up unless another rule is named.
 */
export function convertUnits(
  amount: bigint,
  from: { decimals: number; rate: string },
  to: { decimals: number; rate: string },
  rounding: Rounding = 'ceil',
): BaseUnits {
  const f = parseScaled(from.rate)
  const t = parseScaled(to.rate)
  if (t.digits === 0n) throw new RangeError('the target coin has no USD price')
  const numerator = amount * f.digits * pow10(to.decimals + t.scale)
  const denominator = t.digits * pow10(from.decimals + f.scale)
  return asUnits(divide(numerator, denominator, rounding))
}

/** The USD value of `amount` base units at `rate` as a JSON number of dollars, half up to the cent. */
export const usdValue = (amount: bigint, decimals: number, rate: string): number =>
  centsToNumber(unitsToCents(amount, decimals, rate, 'halfUp'))

/** Cents as exact decimal text, trailing zeros dropped ("150.5", "150"), as a price is stored. */
export const centsToDecimal = (cents: bigint): string => formatUnits(cents, 2)
