// Splitting an amount into parts that always add up to the whole, to the unit.

/**
 * `amount` split in proportion to `weights` (non-negative, not all zero): every part but the
 * last is rounded down, the last takes what is left, so the parts add up to `amount` exactly
 * and none is negative for a non-negative amount.
 */
export function splitByWeights<T extends bigint>(amount: T, weights: readonly bigint[]): T[] {
  if (amount < 0n) throw new RangeError('a negative amount cannot be split')
  if (weights.length === 0) throw new RangeError('no parts to split into')
  let total = 0n
  for (const w of weights) {
    if (w < 0n) throw new RangeError('a negative weight')
    total += w
  }
  if (total === 0n) throw new RangeError('the weights add up to zero')
  const parts: bigint[] = []
  let given = 0n
  for (let i = 0; i < weights.length - 1; i++) {
    const part = (amount * weights[i]!) / total // floor: both are non-negative
    parts.push(part)
    given += part
  }
  parts.push(amount - given)
  return parts as T[]
}

/**
 * The share `numerator / denominator` of `amount`, rounded down (0 ≤ share ≤ amount for
 * 0 ≤ numerator ≤ denominator): the first part of `splitByWeights(amount, [n, d - n])`.
 */
export function shareOf<T extends bigint>(amount: T, numerator: bigint, denominator: bigint): T {
  if (numerator < 0n || numerator > denominator) throw new RangeError('the share is outside 0..1')
  return splitByWeights(amount, [numerator, denominator - numerator])[0]!
}
