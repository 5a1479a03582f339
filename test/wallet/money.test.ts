import { describe, expect, it } from 'vitest'
import { formatExact, formatFixed, toCoinNumber, usdCents, usdValue } from '../../src/modules/wallet/money.ts'

describe('money formatting', () => {
  it('shows six decimals rounded down', () => {
    expect(formatFixed(0n, 18, 6)).toBe('0.000000')
    expect(formatFixed(1_999_999_999_999_999_999n, 18, 6)).toBe('1.999999')
    expect(formatFixed(1n, 18, 6)).toBe('0.000000')
    expect(formatFixed(1_500_000n, 6, 6)).toBe('1.500000')
    expect(formatFixed(123n, 2, 6)).toBe('1.230000')
    expect(formatFixed(10n ** 30n, 18, 6)).toBe('1000000000000.000000')
  })

  it('formats exact amounts and numbers', () => {
    expect(formatExact(1_500_000n, 6)).toBe('1.5')
    expect(formatExact(2_000_000n, 6)).toBe('2')
    expect(formatExact(1n, 18)).toBe('0.000000000000000001')
    expect(toCoinNumber(250_000_000_000_000_000n, 18)).toBe(0.25)
  })

  it('values in USD rounded half up to the cent', () => {
    expect(usdCents(10n ** 18n, 18, '35.12')).toBe(3512n)
    expect(usdValue(1_500_000n, 6, '1')).toBe(1.5)
    expect(usdCents(5_000n, 6, '1')).toBe(1n) // 0.005 → 0.01
    expect(usdCents(4_999n, 6, '1')).toBe(0n)
    expect(usdValue(123_456_789n, 6, '0.999')).toBe(123.33)
    expect(usdValue(0n, 18, '35.12')).toBe(0)
  })
})
