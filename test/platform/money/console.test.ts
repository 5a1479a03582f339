// The admin console's money rules (src/admin-console/public/format.js, plain JavaScript that
// cannot import the API's TypeScript) held to the platform module and its shared cases: it shows
// the same digits (grouped in thousands, with a typographic minus) and reads plain decimals as
// the API does; forms the API also takes (exponents) the console refuses.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatUnits, parseUnits } from '../../../src/platform/money/index.ts'
import { FORMAT_CASES, PARSE_CASES } from './cases.ts'

// The console's own module, as the browser loads it (plain JavaScript, checked by its own tsconfig).
const CONSOLE_FORMAT = '../../../src/admin-console/public/format.js'
const { toBaseUnits, units } = (await import(CONSOLE_FORMAT)) as {
  toBaseUnits(text: string, decimals: number): string
  units(base: string, decimals: number): string
}

/** The console's display with its presentation taken off: no grouping, an ASCII minus. */
const plain = (shown: string) => shown.replaceAll(',', '').replace('−', '-')
const PLAIN_DECIMAL = /^\s*\d+(\.\d*)?\s*$/

describe('the console shows base units as the API does', () => {
  it('for every decimals 0..18 and every amount', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 18 }),
        fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }),
        (d, x) => {
          const shown = units(x.toString(), d)
          expect(plain(shown)).toBe(formatUnits(x, d))
          expect(shown.split('.')[0]).toMatch(/^−?\d{1,3}(,\d{3})*$/)
        },
      ),
      { numRuns: 2000 },
    )
  })

  it.each(FORMAT_CASES)('units($units, $decimals)', ({ units: base, decimals, text }) => {
    expect(plain(units(base.toString(), decimals))).toBe(text)
  })

  it('groups thousands', () => {
    expect(units('1234567000000000000000', 18)).toBe('1,234.567')
    expect(units('-1234500000', 6)).toBe('−1,234.5')
  })
})

describe('the console reads whole coins as the API does', () => {
  it('round-trips what the API shows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 18 }), fc.bigInt({ min: 0n, max: 10n ** 40n }), (d, x) => {
        expect(toBaseUnits(formatUnits(x, d), d)).toBe(x.toString())
      }),
    )
  })

  it.each(PARSE_CASES)('toBaseUnits($text, $decimals)', ({ text, decimals, units: want, error }) => {
    if (!PLAIN_DECIMAL.test(text)) {
      // signs, exponents, separators, empty: the console asks for plain whole coins
      expect(() => toBaseUnits(text, decimals)).toThrow('Enter an amount in whole coins')
      return
    }
    if (error === undefined) {
      expect(toBaseUnits(text, decimals)).toBe(want!.toString())
      expect(parseUnits(text, decimals)).toBe(want)
    } else {
      expect(error).toMatch(/decimal places/)
      expect(() => toBaseUnits(text, decimals)).toThrow(`At most ${decimals} decimals`)
    }
  })

  it('accepts only what the API accepts, with the same value', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 18 }),
        fc.string({ unit: fc.constantFrom('0', '1', '9', '.', ' ', 'e', '-', '+'), maxLength: 14 }),
        (d, text) => {
          let ours: string | undefined
          try {
            ours = toBaseUnits(text, d)
          } catch {
            return
          }
          expect(parseUnits(text, d).toString()).toBe(ours)
        },
      ),
      { numRuns: 3000 },
    )
  })
})
