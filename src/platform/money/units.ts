// Coin amounts: whole-coin decimal text (what users type, what the API shows) ↔ integer base
// units (what the ledger and the chain use), with the coin's decimals.
import { AmountError, expandDecimal, numberToDecimal } from './decimal.ts'
import { divide, pow10 } from './rounding.ts'

declare const baseUnits: unique symbol
/** An amount of a coin in its base units (wei, 10^-6 USDC). */
export type BaseUnits = bigint & { readonly [baseUnits]: true }

/** Marks a bigint read from the ledger, the chain or a row as base units. */
export const asUnits = (value: bigint): BaseUnits => value as BaseUnits

/**
 * Whole-coin amount → base units, exactly. A JSON number is taken as its exact decimal text; a
 * string may have surrounding whitespace, leading zeros, a trailing point or an exponent
 * ("1.5e3"). Throws AmountError for negatives, non-numbers and more fractional digits than
 * `decimals` (never rounds a user's amount silently).
 */
export function parseUnits(value: number | string, decimals: number): BaseUnits {
  let text: string
  if (typeof value === 'number') text = numberToDecimal(value)
  else if (typeof value === 'string' && value.trim() !== '') text = expandDecimal(value.trim())
  else throw new AmountError('must be a number')
  if (text.startsWith('-')) throw new AmountError('must not be negative')
  const [int, frac = ''] = text.split('.')
  if (frac.length > decimals) throw new AmountError(`has more than ${decimals} decimal places`)
  return asUnits(BigInt(int! + frac.padEnd(decimals, '0')))
}

/**
 * Base units → whole-coin decimal text. Without `places`: exact, trailing zeros dropped ("1.5",
 * "2", "0.000000000000000001"). With `places`: exactly that many decimals, the digits beyond
 * rounded toward zero (a wallet never shows more than it holds).
 */
export function formatUnits(amount: bigint, decimals: number, places?: number): string {
  const negative = amount < 0n
  const abs = negative ? -amount : amount
  if (places === undefined) {
    const s = abs.toString().padStart(decimals + 1, '0')
    const int = s.slice(0, s.length - decimals)
    const frac = s.slice(s.length - decimals).replace(/0+$/, '')
    return `${negative ? '-' : ''}${int}${frac ? `.${frac}` : ''}`
  }
  const scaled =
    places >= decimals ? abs * pow10(places - decimals) : divide(abs, pow10(decimals - places), 'towardZero')
  const s = scaled.toString().padStart(places + 1, '0')
  const int = s.slice(0, s.length - places)
  const frac = s.slice(s.length - places)
  return `${negative ? '-' : ''}${int}${places > 0 ? `.${frac}` : ''}`
}

/**
 * Base units as a JSON number of whole coins: the double nearest the exact amount (exact when
 * it has at most 15 significant digits, as quoted amounts do).
 */
export function unitsToNumber(amount: bigint, decimals: number): number {
  return Number(formatUnits(amount, decimals))
}

/** Significant digits of the exact whole-coin text ("0.0012" → 2, "120.5" → 4). */
export function significantDigits(amount: bigint, decimals: number): number {
  return formatUnits(amount < 0n ? -amount : amount, decimals)
    .replace('.', '')
    .replace(/^0+/, '').length
}

/** `amount` rounded up to a multiple of `granule` base units (a shown precision). */
export const ceilToMultiple = (amount: bigint, granule: bigint): bigint =>
  divide(amount, granule, 'ceil') * granule
