import { describe, expect, it } from 'vitest'
import {
  computeQuote,
  MAX_SIGNIFICANT_DIGITS,
  QuoteError,
  usdToCents,
} from '../../src/modules/escrow/quote.ts'
import {
  numberToDecimal,
  formatUnits as unitsToDecimal,
  unitsToNumber,
} from '../../src/platform/money/index.ts'

/** The shown number must be the exact amount: its text round-trips to the same base units. */
function expectExactNumber(units: bigint, decimals: number) {
  const n = unitsToNumber(units, decimals)
  expect(numberToDecimal(n)).toBe(unitsToDecimal(units, decimals))
}

describe('usdToCents', () => {
  it('takes whole dollars and up to two decimals', () => {
    expect(usdToCents(1)).toBe(100n)
    expect(usdToCents(100.5)).toBe(10050n)
    expect(usdToCents(19.99)).toBe(1999n)
    expect(usdToCents(1_000_000_000)).toBe(100_000_000_000n)
  })
  it('refuses more decimals, non-positive, below the minimum, above the maximum, non-finite', () => {
    for (const bad of [0, -5, 0.5, 0.99, 1.001, 0.1 + 0.2, 1e21, 1_000_000_000.01, Number.NaN, Infinity])
      expect(() => usdToCents(bad), String(bad)).toThrow(QuoteError)
  })
})

describe('computeQuote', () => {
  it('follows the formulas on an 18-decimal coin', () => {
    const q = computeQuote({ cents: 10000n, rate: '25', decimals: 18, feePercent: 5 })
    expect(q.coinEscrowAmount).toBe(4n * 10n ** 18n)
    expect(q.expectedFee).toBe(2n * 10n ** 17n)
    expect(q.amountToPay).toBe(42n * 10n ** 17n)
    expect(q.usdFeeCents).toBe(500n)
    expect(q.usdAmountCents).toBe(10500n)
    expect(q.escrowCents).toBe(10000n)
  })

  it('follows the formulas on a 6-decimal token', () => {
    const q = computeQuote({ cents: 12345n, rate: '1', decimals: 6, feePercent: 5 })
    expect(q.coinEscrowAmount).toBe(123_450_000n)
    expect(q.expectedFee).toBe(6_172_500n)
    expect(q.amountToPay).toBe(129_622_500n)
    expect(q.usdFeeCents).toBe(617n) // 6.1725 half up
    expect(q.shownDecimals).toBe(6)
  })

  it('rounds coin amounts up to at most 8 decimals so the JSON number is exact', () => {
    // 100 / 3 = 33.333… coins: rounded up at the 8th decimal
    const q = computeQuote({ cents: 10000n, rate: '3', decimals: 18, feePercent: 5 })
    expect(unitsToDecimal(q.coinEscrowAmount, 18)).toBe('33.33333334')
    expect(q.coinEscrowAmount * 3n >= 100n * 10n ** 18n).toBe(true)
    expect(unitsToDecimal(q.expectedFee, 18)).toBe('1.66666667')
    expect(unitsToDecimal(q.amountToPay, 18)).toBe('35.00000001')
    for (const v of [q.coinEscrowAmount, q.expectedFee, q.amountToPay]) expectExactNumber(v, 18)
  })

  it('never quotes less than the price, for rates with many decimals', () => {
    const rates = ['0.000000123456789', '35.123456789012345678', '1.000001', '99999.99', '0.3']
    for (const rate of rates)
      for (const cents of [100n, 101n, 99_999n, 123_456_789n, 100_000_000_000n]) {
        for (const decimals of [0, 2, 6, 8, 18]) {
          let q: ReturnType<typeof computeQuote>
          try {
            q = computeQuote({ cents, rate, decimals, feePercent: 2.5 })
          } catch (err) {
            expect(err).toBeInstanceOf(QuoteError)
            expect((err as QuoteError).reason).toBe('too_large')
            continue
          }
          // coinEscrowAmount × rate ≥ price, exactly
          const [i, f = ''] = rate.split('.')
          const rateDigits = BigInt(`${i}${f}`)
          expect(q.coinEscrowAmount * rateDigits * 100n >= cents * 10n ** BigInt(decimals + f.length)).toBe(
            true,
          )
          expect(q.expectedFee * 1000n >= q.coinEscrowAmount * 25n).toBe(true)
          expect(q.amountToPay).toBe(q.coinEscrowAmount + q.expectedFee)
          for (const v of [q.coinEscrowAmount, q.expectedFee, q.amountToPay]) expectExactNumber(v, decimals)
        }
      }
  })

  it('handles tiny amounts on a cheap-per-unit coin and huge amounts on an expensive-per-unit one', () => {
    const tiny = computeQuote({ cents: 100n, rate: '60000', decimals: 8, feePercent: 5 })
    expect(unitsToDecimal(tiny.coinEscrowAmount, 8)).toBe('0.00001667')
    expect(tiny.expectedFee).toBe(84n) // 5 % of 1667 = 83.35 → 84
    const huge = computeQuote({ cents: 100_000_000_000n, rate: '0.0001', decimals: 18, feePercent: 5 })
    expect(unitsToDecimal(huge.coinEscrowAmount, 18)).toBe('10000000000000')
    expect(unitsToDecimal(huge.amountToPay, 18)).toBe('10500000000000')
  })

  it('refuses an amount needing more than 15 significant integer digits', () => {
    expect(() =>
      computeQuote({ cents: 100_000_000_000n, rate: '0.000000000001', decimals: 18, feePercent: 5 }),
    ).toThrow(/too large/)
    expect(MAX_SIGNIFICANT_DIGITS).toBe(15)
  })

  it('refuses a zero rate', () => {
    expect(() => computeQuote({ cents: 100n, rate: '0', decimals: 18, feePercent: 5 })).toThrow(QuoteError)
  })

  it('quotes no fee at 0 %', () => {
    const q = computeQuote({ cents: 500n, rate: '1', decimals: 6, feePercent: 0 })
    expect(q.expectedFee).toBe(0n)
    expect(q.amountToPay).toBe(5_000_000n)
    expect(q.usdAmountCents).toBe(500n)
  })
})
