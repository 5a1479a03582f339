// Example cases shared by the platform module's tests and the admin console's: each former parser
// and formatter's edge cases, with what the API answers today.

/** Whole-coin text → base units (or the AmountError message) at `decimals`. */
export const PARSE_CASES: { text: string; decimals: number; units?: bigint; error?: string }[] = [
  { text: '1.5', decimals: 6, units: 1_500_000n },
  { text: '0', decimals: 18, units: 0n },
  { text: '000.000', decimals: 2, units: 0n },
  { text: ' 01.50 ', decimals: 6, units: 1_500_000n },
  { text: '1.', decimals: 6, units: 1_000_000n },
  { text: '0.000000000000000001', decimals: 18, units: 1n },
  { text: '123456789012345678901234567890', decimals: 0, units: 123456789012345678901234567890n },
  { text: '1e3', decimals: 0, units: 1000n },
  { text: '1.5E-6', decimals: 7, units: 15n },
  { text: '1.5E-6', decimals: 6, error: 'has more than 6 decimal places' },
  { text: '2.5e+2', decimals: 1, units: 2500n },
  { text: '1.50000', decimals: 2, units: 150n },
  { text: '1.234', decimals: 2, error: 'has more than 2 decimal places' },
  { text: '0.5', decimals: 0, error: 'has more than 0 decimal places' },
  { text: '1e-7', decimals: 6, error: 'has more than 6 decimal places' },
  { text: '-1', decimals: 6, error: 'must not be negative' },
  { text: '-0', decimals: 6, error: 'must not be negative' },
  { text: '', decimals: 6, error: 'must be a number' },
  { text: '   ', decimals: 6, error: 'must be a number' },
  { text: '.5', decimals: 6, error: 'must be a decimal number' },
  { text: '+1', decimals: 6, error: 'must be a decimal number' },
  { text: '1,5', decimals: 6, error: 'must be a decimal number' },
  { text: '0x10', decimals: 6, error: 'must be a decimal number' },
  { text: '1 000', decimals: 6, error: 'must be a decimal number' },
  { text: 'Infinity', decimals: 6, error: 'must be a decimal number' },
  { text: 'abc', decimals: 6, error: 'must be a decimal number' },
  { text: '1e201', decimals: 6, error: 'is out of range' },
]

/** Base units → exact whole-coin text at `decimals`. */
export const FORMAT_CASES: { units: bigint; decimals: number; text: string }[] = [
  { units: 0n, decimals: 18, text: '0' },
  { units: 0n, decimals: 0, text: '0' },
  { units: 1n, decimals: 18, text: '0.000000000000000001' },
  { units: 1_500_000n, decimals: 6, text: '1.5' },
  { units: 2_000_000n, decimals: 6, text: '2' },
  { units: 1_234_567_000_000_000_000_000n, decimals: 18, text: '1234.567' },
  { units: 42n, decimals: 0, text: '42' },
  { units: -1_500_000n, decimals: 6, text: '-1.5' },
  { units: 10n ** 30n, decimals: 18, text: '1000000000000' },
]
