// The price of a collection (`paymentFee`, USD) as clients send it: a decimal string (the
// specification) or a JSON number (the public SDK). Both follow one rule and are stored alike.
import { errors } from '../../http/errors.ts'

/** USD with at most two decimals and at most twelve whole digits, e.g. `150`, `150.5`, `150.50`. */
export const MONEY_PATTERN = '^[0-9]{1,12}(\\.[0-9]{1,2})?$'
export const MONEY_MAX = 999_999_999_999.99
const MONEY = new RegExp(MONEY_PATTERN)

/**
 * The decimal text of a price. A number is taken as its shortest decimal form (`150.5` → "150.5"),
 * so one that is not exactly a cent amount there (`0.1 + 0.2`, `1e-7`, `12.345`) is refused rather
 * than rounded.
 */
export function paymentFeeText(value: string | number, path = '/paymentFee'): string {
  const text = typeof value === 'number' ? String(value) : value
  if (typeof value === 'number' && (!Number.isFinite(value) || value < 0 || value > MONEY_MAX))
    throw errors.field(path, `paymentFee must be 0 to ${MONEY_MAX}`)
  if (!MONEY.test(text))
    throw errors.field(path, 'paymentFee must be a non-negative amount with at most two decimals')
  return text
}
