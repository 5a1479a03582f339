// Decimal text ↔ exact values: the expansion of any decimal or exponent form to plain digits,
// and the digits-and-scale form of a rate or a percentage. No floating point touches a value.

/** A refused amount or decimal; the message is the end of a sentence ("amount must …"). */
export class AmountError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'AmountError'
  }
}

const DECIMAL = /^(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i

/**
 * Any decimal text (leading zeros, a trailing point, an exponent, a leading minus) as plain
 * digits without an exponent, leading or trailing zeros: "01.50" → "1.5", "-1e-7" → "-0.0000001".
 */
export function expandDecimal(text: string): string {
  const negative = text.startsWith('-')
  const m = DECIMAL.exec(negative ? text.slice(1) : text)
  if (!m) throw new AmountError('must be a decimal number')
  let digits = m[1]! + (m[2] ?? '')
  let point = m[1]!.length + Number(m[3] ?? 0)
  if (Math.abs(point) > 200) throw new AmountError('is out of range')
  if (point < 0) {
    digits = '0'.repeat(-point) + digits
    point = 0
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length)
  const int = digits.slice(0, point).replace(/^0+(?=\d)/, '') || '0'
  const frac = digits.slice(point).replace(/0+$/, '')
  return `${negative ? '-' : ''}${int}${frac ? `.${frac}` : ''}`
}

/** A JSON number's exact decimal text (no exponent): 1e-7 → "0.0000001". */
export function numberToDecimal(value: number): string {
  if (!Number.isFinite(value)) throw new AmountError('must be a finite number')
  return expandDecimal(String(value))
}

/** A decimal string (rate, amount) validated and normalised, e.g. " 01.50 " → "1.5". */
export function normaliseDecimal(text: string): string {
  const out = expandDecimal(text.trim())
  if (out.startsWith('-')) throw new AmountError('must not be negative')
  return out
}

/** A non-negative decimal as integer digits over a power of ten: "35.12" → 3512 / 10^2. */
export interface Scaled {
  readonly digits: bigint
  readonly scale: number
}

// The few rates in use, parsed once (every wallet read values every coin at its rate).
const parsed = new Map<string, Scaled>()

/**
 * A rate or a percentage, plain digits with an optional fraction ("35.12", "1", "0.000001",
 * surrounding whitespace allowed; no sign, no exponent) → digits and scale.
 */
export function parseScaled(value: string): Scaled {
  const known = parsed.get(value)
  if (known) return known
  const m = /^(\d+)(?:\.(\d+))?$/.exec(value.trim())
  if (!m) throw new AmountError(`not a decimal: ${value}`)
  const frac = m[2] ?? ''
  const out = Object.freeze({ digits: BigInt(`${m[1]}${frac}`), scale: frac.length })
  if (parsed.size >= 256) parsed.clear()
  parsed.set(value, out)
  return out
}
