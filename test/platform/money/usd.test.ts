// USD cents and conversions by rate: round trips, the named rounding of each conversion, and the
// former sites' edge cases (escrow prices, collection prices, wallet values).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  AmountError,
  centsToDecimal,
  centsToNumber,
  centsToUnits,
  convertUnits,
  formatCents,
  unitsToCents,
  usdNumberToCents,
  usdTextToCents,
  usdValue,
} from '../../../src/platform/money/index.ts'

const cents = fc.bigInt({ min: 0n, max: 10n ** 20n })
const decimals = fc.integer({ min: 0, max: 18 })
/** A rate as the rate sources give it: plain digits, up to 8 decimals, never zero. */
const rate = fc
  .tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.integer({ min: 0, max: 8 }))
  .map(([digits, scale]) => {
    const s = digits.toString().padStart(scale + 1, '0')
    return scale ? `${s.slice(0, -scale)}.${s.slice(-scale)}` : s
  })
const units = fc.bigInt({ min: 0n, max: 10n ** 36n })

/** value × 10^k of a rate "a.b", as an exact fraction (numerator, denominator). */
const rateFraction = (r: string) => {
  const [int, frac = ''] = r.split('.')
  return { n: BigInt(int! + frac), d: 10n ** BigInt(frac.length) }
}

describe('cents as text', () => {
  it('round-trips formatCents through usdTextToCents', () => {
    fc.assert(
      fc.property(cents, (c) => {
        const text = formatCents(c)
        expect(text).toMatch(/^\d+\.\d\d$/)
        expect(usdTextToCents(text)).toBe(c)
        expect(usdTextToCents(centsToDecimal(c))).toBe(c)
      }),
    )
  })

  it('round-trips a JSON number of dollars of up to 15 digits', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 15n - 1n }), (c) => {
        expect(usdNumberToCents(centsToNumber(c))).toBe(c)
      }),
    )
  })

  it('keeps the former sites’ answers', () => {
    expect(formatCents(10500n)).toBe('105.00')
    expect(formatCents(5n)).toBe('0.05')
    expect(formatCents(0n)).toBe('0.00')
    expect(formatCents(-150n)).toBe('-1.50')
    expect(centsToDecimal(15050n)).toBe('150.5')
    expect(centsToDecimal(15000n)).toBe('150')
    expect(centsToNumber(1999n)).toBe(19.99)
    expect(usdTextToCents(' 150.5 ')).toBe(15050n)
    expect(usdTextToCents('150.50')).toBe(15050n)
    expect(usdTextToCents('007')).toBe(700n)
    expect(usdTextToCents('0')).toBe(0n)
    for (const bad of ['150.', '.5', '1e2', '-1', '+1', '150.505', '1,50', '', ' ', 'abc'])
      expect(usdTextToCents(bad), bad).toBeNull()
  })

  it('takes USD numbers positive with at most two decimals, with the sentence a client reads', () => {
    expect(usdNumberToCents(1)).toBe(100n)
    expect(usdNumberToCents(100.5)).toBe(10050n)
    expect(usdNumberToCents(19.99)).toBe(1999n)
    expect(usdNumberToCents(0.01)).toBe(1n)
    for (const bad of [0, -5, -0, Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number])
      expect(() => usdNumberToCents(bad), String(bad)).toThrow('amount must be a positive number of USD')
    for (const bad of [1.001, 0.1 + 0.2, 1e21, 1e-7, 0.001])
      expect(() => usdNumberToCents(bad), String(bad)).toThrow(
        new AmountError('amount must be USD with at most two decimals'),
      )
  })
})

describe('units → cents at a rate', () => {
  it('rounds half up to the cent', () => {
    fc.assert(
      fc.property(units, decimals, rate, (u, d, r) => {
        const c = unitsToCents(u, d, r)
        // exact value in cents = u × rate × 100 / 10^d
        const { n, d: den } = rateFraction(r)
        const num = u * n * 100n
        const whole = den * 10n ** BigInt(d)
        // |c − exact| ≤ ½, a half goes up
        expect(2n * (c * whole - num) <= whole).toBe(true)
        expect(2n * (num - c * whole) < whole).toBe(true)
        expect(unitsToCents(u, d, r, 'floor') <= c && c <= unitsToCents(u, d, r, 'ceil')).toBe(true)
      }),
    )
  })

  it('keeps the wallet’s and the quote’s answers', () => {
    expect(unitsToCents(10n ** 18n, 18, '35.12')).toBe(3512n)
    expect(usdValue(1_500_000n, 6, '1')).toBe(1.5)
    expect(unitsToCents(5_000n, 6, '1')).toBe(1n) // 0.005 → 0.01
    expect(unitsToCents(4_999n, 6, '1')).toBe(0n)
    expect(usdValue(123_456_789n, 6, '0.999')).toBe(123.33)
    expect(usdValue(0n, 18, '35.12')).toBe(0)
    expect(unitsToCents(6_172_500n, 6, '1')).toBe(617n) // 6.1725 half up
    expect(unitsToCents(1n, 0, ' 2 ')).toBe(200n)
    expect(() => unitsToCents(1n, 6, '1e3')).toThrow('not a decimal: 1e3')
    expect(() => unitsToCents(1n, 6, '-1')).toThrow(AmountError)
  })
})

describe('cents → units at a rate', () => {
  it('rounds up: never less than the price, less than one unit more', () => {
    fc.assert(
      fc.property(cents, decimals, rate, (c, d, r) => {
        const u = centsToUnits(c, d, r)
        const { n, d: den } = rateFraction(r)
        // value of u in cents × den × 10^d = u × n × 100
        const paid = u * n * 100n
        const price = c * den * 10n ** BigInt(d)
        expect(paid >= price).toBe(true)
        if (u > 0n) expect((u - 1n) * n * 100n < price).toBe(true)
        expect(centsToUnits(c, d, r, 'floor') <= u).toBe(true)
      }),
    )
  })

  it('refuses a coin without a price', () => {
    expect(() => centsToUnits(100n, 18, '0')).toThrow('the coin has no USD price')
    expect(centsToUnits(10000n, 18, '25')).toBe(4n * 10n ** 18n)
    expect(centsToUnits(10000n, 18, '3')).toBe(33_333_333_333_333_333_334n)
  })
})

describe('units of one coin → units of another', () => {
  it('rounds up to the same USD value', () => {
    fc.assert(
      fc.property(units, decimals, rate, decimals, rate, (u, fd, fr, td, tr) => {
        const out = convertUnits(u, { decimals: fd, rate: fr }, { decimals: td, rate: tr })
        const f = rateFraction(fr)
        const t = rateFraction(tr)
        // USD value × (f.d · t.d · 10^fd · 10^td): in = u·f.n·t.d·10^td, out = out·t.n·f.d·10^fd
        const valueIn = u * f.n * t.d * 10n ** BigInt(td)
        const worth = (x: bigint) => x * t.n * f.d * 10n ** BigInt(fd)
        expect(worth(out) >= valueIn).toBe(true)
        if (out > 0n) expect(worth(out - 1n) < valueIn).toBe(true)
      }),
    )
  })

  it('uses each coin’s own rate scale (wei of a 35.12 USD coin as units of a 1 USD token)', () => {
    // 1 AVAX-like coin at 35.12 USD = 35.12 tokens of 6 decimals
    expect(convertUnits(10n ** 18n, { decimals: 18, rate: '35.12' }, { decimals: 6, rate: '1' })).toBe(
      35_120_000n,
    )
    expect(convertUnits(10n ** 18n, { decimals: 18, rate: '35' }, { decimals: 6, rate: '0.5' })).toBe(
      70_000_000n,
    )
    expect(convertUnits(1n, { decimals: 18, rate: '35.12' }, { decimals: 6, rate: '1' })).toBe(1n)
    expect(() => convertUnits(1n, { decimals: 18, rate: '1' }, { decimals: 6, rate: '0.00' })).toThrow(
      RangeError,
    )
  })
})
