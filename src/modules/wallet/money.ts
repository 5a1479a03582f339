// Exact money arithmetic for display: base units × a decimal USD rate → cents, with bigints only.

// The few rates in use, parsed once (every wallet read values every coin at its rate).
const parsed = new Map<string, { digits: bigint; scale: number }>()

/** Parses a non-negative decimal string ("35.12", "1", "0.000001") into digits and a scale. */
function parseDecimal(value: string): { digits: bigint; scale: number } {
  const known = parsed.get(value)
  if (known) return known
  const m = /^(\d+)(?:\.(\d+))?$/.exec(value.trim())
  if (!m) throw new Error(`not a decimal: ${value}`)
  const frac = m[2] ?? ''
  const out = { digits: BigInt(`${m[1]}${frac}`), scale: frac.length }
  if (parsed.size >= 256) parsed.clear()
  parsed.set(value, out)
  return out
}

/**
 * USD value in cents of `amount` base units of a coin with `decimals` places at `rate` USD per
 * whole coin, rounded half up to the cent.
 */
export function usdCents(amount: bigint, decimals: number, rate: string): bigint {
  const { digits, scale } = parseDecimal(rate)
  const numerator = amount * digits * 100n
  const denominator = 10n ** BigInt(decimals + scale)
  return (numerator * 2n + denominator) / (denominator * 2n)
}

/** The same as a JSON number of dollars (two decimals). */
export function usdValue(amount: bigint, decimals: number, rate: string): number {
  return centsToNumber(usdCents(amount, decimals, rate))
}

export function centsToNumber(cents: bigint): number {
  return Number(cents) / 100
}

/**
 * Base units as a decimal string with exactly `places` decimals, rounded DOWN (towards zero): a
 * wallet never shows more than it holds.
 */
export function formatFixed(amount: bigint, decimals: number, places: number): string {
  const negative = amount < 0n
  const abs = negative ? -amount : amount
  const scaled =
    places >= decimals ? abs * 10n ** BigInt(places - decimals) : abs / 10n ** BigInt(decimals - places)
  const s = scaled.toString().padStart(places + 1, '0')
  const whole = s.slice(0, s.length - places)
  const frac = s.slice(s.length - places)
  return `${negative ? '-' : ''}${whole}${places > 0 ? `.${frac}` : ''}`
}

/** Base units as an exact decimal string in whole coins, without trailing zeros ("1.5"). */
export function formatExact(amount: bigint, decimals: number): string {
  const s = formatFixed(amount, decimals, decimals)
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s
}

/** Base units as a JSON number in whole coins (the nearest double). */
export function toCoinNumber(amount: bigint, decimals: number): number {
  return Number(formatExact(amount, decimals))
}
