// The rounding rules of money arithmetic, named once. Every division of an amount goes through
// `divide` with the rule its site needs, so a rule is chosen by name, never by a `+ b - 1n`.

/**
 * - `floor`: toward −∞ (a share of what is left: the last part takes the rest)
 * - `ceil`: toward +∞ (what a payer owes: never less than the price)
 * - `halfUp`: to the nearest, halves away from zero (USD values shown to the cent)
 * - `towardZero`: drop the digits (a balance shown never exceeds what is held)
 */
export type Rounding = 'floor' | 'ceil' | 'halfUp' | 'towardZero'

/** `numerator / denominator` rounded by `rounding`; the denominator must be positive. */
export function divide(numerator: bigint, denominator: bigint, rounding: Rounding): bigint {
  if (denominator <= 0n) throw new RangeError('the denominator must be positive')
  const q = numerator / denominator // toward zero
  const r = numerator % denominator
  if (r === 0n) return q
  switch (rounding) {
    case 'towardZero':
      return q
    case 'floor':
      return numerator < 0n ? q - 1n : q
    case 'ceil':
      return numerator < 0n ? q : q + 1n
    case 'halfUp': {
      const twice = (r < 0n ? -r : r) * 2n
      if (twice < denominator) return q
      return numerator < 0n ? q - 1n : q + 1n
    }
  }
}

export const pow10 = (n: number): bigint => 10n ** BigInt(n)
