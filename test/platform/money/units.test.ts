// Coin amounts: parse and format at every decimals 0..18, as properties and at the former sites'
// edge cases.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  AmountError,
  formatUnits,
  normaliseDecimal,
  numberToDecimal,
  parseUnits,
  significantDigits,
  unitsToNumber,
} from '../../../src/platform/money/index.ts'
import { FORMAT_CASES, PARSE_CASES } from './cases.ts'

const decimals = fc.integer({ min: 0, max: 18 })
/** Any amount up to 10^40 base units (far beyond any coin's supply). */
const amount = fc.bigInt({ min: 0n, max: 10n ** 40n })

/** Decimal text as a user may type it: leading zeros, trailing zeros, spaces, a bare point. */
const typed = (d: number) =>
  fc
    .tuple(
      fc.string({ unit: fc.constantFrom('0', '1', '5', '9'), minLength: 1, maxLength: 25 }),
      fc.string({ unit: fc.constantFrom('0', '3', '7'), maxLength: d }),
      fc.constantFrom('', '0', '00'),
      fc.constantFrom('', ' ', '\t'),
      fc.boolean(),
    )
    .map(([int, frac, zeros, pad, point]) => {
      const fraction = frac.length + zeros.length > d ? frac : frac + zeros
      const body = fraction ? `${int}.${fraction}` : point ? `${int}.` : int
      return `${pad}${body}${pad}`
    })

describe('parseUnits ∘ formatUnits', () => {
  it('is the identity for every decimals 0..18 and every amount', () => {
    fc.assert(
      fc.property(decimals, amount, (d, x) => {
        expect(parseUnits(formatUnits(x, d), d)).toBe(x)
      }),
      { numRuns: 2000 },
    )
  })

  it('formats without leading or trailing zeros', () => {
    fc.assert(
      fc.property(decimals, amount, (d, x) => {
        const text = formatUnits(x, d)
        expect(text).toMatch(/^(0|[1-9]\d*)(\.\d*[1-9])?$/)
      }),
    )
  })

  it('refuses a negative amount formatted', () => {
    fc.assert(
      fc.property(decimals, fc.bigInt({ min: -(10n ** 30n), max: -1n }), (d, x) => {
        expect(formatUnits(x, d)).toBe(`-${formatUnits(-x, d)}`)
        expect(() => parseUnits(formatUnits(x, d), d)).toThrow('must not be negative')
      }),
    )
  })
})

describe('formatUnits ∘ parseUnits', () => {
  it('normalises what a user types', () => {
    fc.assert(
      fc.property(
        decimals.chain((d) => fc.tuple(fc.constant(d), typed(d))),
        ([d, text]) => {
          const units = parseUnits(text, d)
          const shown = formatUnits(units, d)
          expect(shown).toBe(normaliseDecimal(text))
          expect(parseUnits(shown, d)).toBe(units)
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('takes a JSON number as its exact decimal text', () => {
    fc.assert(
      // the parser refuses a point more than 200 places away (subnormal doubles): see the cases
      fc.property(
        fc.double({ min: 0, max: 1e12, noNaN: true }).filter((n) => n === 0 || n > 1e-150),
        (n) => {
          const text = numberToDecimal(n)
          const d = (text.split('.')[1] ?? '').length
          expect(parseUnits(n, d)).toBe(parseUnits(text, d))
          expect(Number(formatUnits(parseUnits(n, d), d))).toBe(n)
        },
      ),
    )
  })
})

describe('formatUnits with places', () => {
  it('shows exactly that many decimals, rounded toward zero', () => {
    fc.assert(
      fc.property(decimals, fc.integer({ min: 0, max: 20 }), amount, (d, places, x) => {
        const text = formatUnits(x, d, places)
        expect(text.split('.')[1]?.length ?? 0).toBe(places)
        // what is shown is at most the amount and less than one shown step below it
        const shown = parseUnits(text, Math.max(d, places)) // in units of 10^-max(d, places)
        const exact = x * 10n ** BigInt(Math.max(d, places) - d)
        const step = 10n ** BigInt(Math.max(d, places) - places)
        expect(shown <= exact && exact - shown < step).toBe(true)
        expect(formatUnits(-x, d, places)).toBe(x === 0n ? text : `-${text}`)
      }),
    )
  })

  it('keeps the wallet’s six decimals', () => {
    expect(formatUnits(0n, 18, 6)).toBe('0.000000')
    expect(formatUnits(1_999_999_999_999_999_999n, 18, 6)).toBe('1.999999')
    expect(formatUnits(1n, 18, 6)).toBe('0.000000')
    expect(formatUnits(1_500_000n, 6, 6)).toBe('1.500000')
    expect(formatUnits(123n, 2, 6)).toBe('1.230000')
    expect(formatUnits(10n ** 30n, 18, 6)).toBe('1000000000000.000000')
    expect(formatUnits(15n, 1, 0)).toBe('1')
  })
})

describe('unitsToNumber', () => {
  it('is exact for amounts of at most 15 significant digits', () => {
    fc.assert(
      fc.property(
        decimals,
        fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }),
        fc.integer({ min: 0, max: 10 }),
        (d, x, z) => {
          const units = x * 10n ** BigInt(z)
          fc.pre(significantDigits(units, d) <= 15)
          expect(numberToDecimal(unitsToNumber(units, d))).toBe(formatUnits(units, d))
        },
      ),
    )
    expect(unitsToNumber(250_000_000_000_000_000n, 18)).toBe(0.25)
  })
})

describe('the former parsers’ edge cases', () => {
  it.each(PARSE_CASES)('parseUnits($text, $decimals)', ({ text, decimals, units, error }) => {
    if (error === undefined) expect(parseUnits(text, decimals)).toBe(units)
    else {
      expect(() => parseUnits(text, decimals)).toThrow(AmountError)
      expect(() => parseUnits(text, decimals)).toThrow(error)
    }
  })

  it.each(FORMAT_CASES)('formatUnits($units, $decimals)', ({ units, decimals, text }) => {
    expect(formatUnits(units, decimals)).toBe(text)
  })

  it('takes JSON numbers exactly, refusing the non-finite', () => {
    expect(parseUnits(1e-7, 18)).toBe(100_000_000_000n)
    expect(parseUnits(0.1, 1)).toBe(1n)
    expect(parseUnits(1e21, 0)).toBe(10n ** 21n)
    expect(() => parseUnits(0.1 + 0.2, 6)).toThrow('has more than 6 decimal places')
    expect(() => parseUnits(-0.5, 6)).toThrow('must not be negative')
    expect(() => parseUnits(Number.NaN, 6)).toThrow('must be a finite number')
    expect(() => parseUnits(Number.POSITIVE_INFINITY, 6)).toThrow('must be a finite number')
    expect(() => parseUnits(null as unknown as string, 6)).toThrow('must be a number')
    expect(() => parseUnits(5e-324, 18)).toThrow('is out of range')
  })

  it('normalises decimal text and refuses a negative one', () => {
    expect(normaliseDecimal(' 01.50 ')).toBe('1.5')
    expect(normaliseDecimal('35.120')).toBe('35.12')
    expect(normaliseDecimal('1e-3')).toBe('0.001')
    expect(() => normaliseDecimal('-1')).toThrow('must not be negative')
    expect(() => normaliseDecimal('x')).toThrow('must be a decimal number')
  })
})
