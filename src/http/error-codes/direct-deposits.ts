// Codes of direct deposits: public payment orders for a collection.
import { code } from './define.ts'

export const DIRECT_DEPOSIT_CODES = {
  COLLECTION_NOT_PAYABLE: code(
    422,
    'The collection cannot take a payment: it is paid already, closed (completed, cancelled, in dispute), delivered, or has no price.',
    'Do not retry; pay another collection, or ask its creator to open or price it.',
  ),
  PAYMENT_ORDER_PENDING: code(
    409,
    'Another payment order of the collection (or its creator’s own payment) awaits payment.',
    'Retry once that order is paid or has expired (at most 30 minutes).',
  ),
  PAYMENT_AMOUNT_MISMATCH: code(
    422,
    'The amount is not the collection’s price; `data.price` is the price in USD.',
    'Send the price as `amount`.',
  ),
} as const
