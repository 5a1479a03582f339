// Rounding rules and splits: every rule by its definition, and splits that add up to the whole.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { divide, shareOf, splitByWeights } from '../../../src/platform/money/index.ts'

const big = fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n })
const positive = fc.bigInt({ min: 1n, max: 10n ** 20n })

describe('divide', () => {
  it('rounds by each named rule', () => {
    fc.assert(
      fc.property(big, positive, (n, d) => {
        const floor = divide(n, d, 'floor')
        expect(floor * d <= n && n < (floor + 1n) * d).toBe(true)
        const ceil = divide(n, d, 'ceil')
        expect((ceil - 1n) * d < n && n <= ceil * d).toBe(true)
        const zero = divide(n, d, 'towardZero')
        expect(zero).toBe(n < 0n ? ceil : floor)
        const half = divide(n, d, 'halfUp')
        const off = n - half * d // in (−d/2, d/2], a half away from zero
        expect(2n * (off < 0n ? -off : off) <= d).toBe(true)
        if (2n * (off < 0n ? -off : off) === d) expect(n >= 0n ? off < 0n : off > 0n).toBe(true)
      }),
    )
  })

  it('rounds halves away from zero', () => {
    expect(divide(5n, 10n, 'halfUp')).toBe(1n)
    expect(divide(15n, 10n, 'halfUp')).toBe(2n)
    expect(divide(-5n, 10n, 'halfUp')).toBe(-1n)
    expect(divide(4n, 10n, 'halfUp')).toBe(0n)
    expect(divide(-7n, 2n, 'floor')).toBe(-4n)
    expect(divide(-7n, 2n, 'ceil')).toBe(-3n)
    expect(() => divide(1n, 0n, 'floor')).toThrow(RangeError)
  })
})

describe('splitByWeights', () => {
  const weights = fc.array(fc.bigInt({ min: 0n, max: 10n ** 12n }), { minLength: 1, maxLength: 12 })

  it('gives parts that add up to the whole and are never negative', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), weights, (amount, w) => {
        fc.pre(w.some((x) => x > 0n))
        const parts = splitByWeights(amount, w)
        expect(parts).toHaveLength(w.length)
        expect(parts.reduce((a, b) => a + b, 0n)).toBe(amount)
        for (const p of parts) expect(p >= 0n).toBe(true)
        // every part but the last is its proportional share rounded down
        const total = w.reduce((a, b) => a + b, 0n)
        for (let i = 0; i < w.length - 1; i++) expect(parts[i]).toBe((amount * w[i]!) / total)
      }),
    )
  })

  it('refuses what cannot be split', () => {
    expect(() => splitByWeights(-1n, [1n])).toThrow(RangeError)
    expect(() => splitByWeights(1n, [])).toThrow(RangeError)
    expect(() => splitByWeights(1n, [0n, 0n])).toThrow(RangeError)
    expect(() => splitByWeights(1n, [1n, -1n])).toThrow(RangeError)
    expect(splitByWeights(10n, [1n, 1n, 1n])).toEqual([3n, 3n, 4n])
  })
})

describe('shareOf', () => {
  it('is the floor of the share, within the amount, and successive shares never overdraw', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 24n }),
        fc.array(fc.bigInt({ min: 1n, max: 10n ** 6n }), { minLength: 1, maxLength: 8 }),
        (amount, cents) => {
          // releases in parts of `cents` out of their total, the last taking what is left
          let left = amount
          let remaining = cents.reduce((a, b) => a + b, 0n)
          let paid = 0n
          for (const [i, c] of cents.entries()) {
            const part = i === cents.length - 1 ? left : shareOf(left, c, remaining)
            expect(part >= 0n && part <= left).toBe(true)
            if (i < cents.length - 1) expect(part).toBe((left * c) / remaining)
            left -= part
            remaining -= c
            paid += part
          }
          expect(paid).toBe(amount)
          expect(left).toBe(0n)
        },
      ),
    )
    expect(shareOf(100n, 33n, 100n)).toBe(33n)
    expect(shareOf(99n, 1n, 2n)).toBe(49n)
    expect(() => shareOf(1n, 3n, 2n)).toThrow(RangeError)
  })
})
