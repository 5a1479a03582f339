// Exact conversions between whole-coin decimal amounts (what users type, what the API shows) and
// integer base units (what the ledger and the chain use). No floating point touches the value.

const DECIMAL = /^(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i

export class AmountError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'AmountError'
  }
}

/** A JSON number's exact decimal text (no exponent): 1e-7 → "0.0000001". */
export function numberToDecimal(value: number): string {
  if (!Number.isFinite(value)) throw new AmountError('must be a finite number')
  return expand(String(value))
}

function expand(text: string): string {
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

/**
 * Whole-coin amount → base units, exactly. Throws AmountError for negatives, non-numbers and
 * more fractional digits than `decimals` (never rounds a user's amount silently).
 */
export function parseUnits(value: number | string, decimals: number): bigint {
  let text: string
  if (typeof value === 'number') text = numberToDecimal(value)
  else if (typeof value === 'string' && value.trim() !== '') text = expand(value.trim())
  else throw new AmountError('must be a number')
  if (text.startsWith('-')) throw new AmountError('must not be negative')
  const [int, frac = ''] = text.split('.')
  if (frac.length > decimals) throw new AmountError(`has more than ${decimals} decimal places`)
  return BigInt(int! + frac.padEnd(decimals, '0'))
}

/**
 * Base units → whole-coin decimal string. Without `fixed`, trailing zeros are dropped ("1.5",
 * "2"); with `fixed`, exactly that many decimals, extra digits cut (rounded toward zero).
 */
export function formatUnits(amount: bigint, decimals: number, fixed?: number): string {
  const negative = amount < 0n
  const abs = negative ? -amount : amount
  const s = abs.toString().padStart(decimals + 1, '0')
  const int = s.slice(0, s.length - decimals)
  let frac = s.slice(s.length - decimals)
  if (fixed === undefined) frac = frac.replace(/0+$/, '')
  else frac = frac.slice(0, fixed).padEnd(fixed, '0')
  return `${negative ? '-' : ''}${int}${frac ? `.${frac}` : ''}`
}

/** A decimal string (rate, amount) validated and normalised, e.g. " 01.50 " → "1.5". */
export function normaliseDecimal(text: string): string {
  const out = expand(text.trim())
  if (out.startsWith('-')) throw new AmountError('must not be negative')
  return out
}
