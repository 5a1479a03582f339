// Codes of escrows: funding, payment, release, cancellation, child escrows and payout legs.
import { code } from './define.ts'

export const ESCROW_CODES = {
  ESCROW_ALREADY_RELEASED: code(
    409,
    'The escrow was released already. Answered as `data.reason` beside `data.code` CONFLICT, which the API contract fixes for this case.',
    'Nothing to do: read the collection or escrow for its payouts.',
  ),
  ESCROW_CANCELLED: code(
    409,
    'The escrow was cancelled.',
    'Do not retry; create a new escrow (or payment) if the work goes on.',
  ),
  ESCROW_ALREADY_PAID: code(
    409,
    'The escrow is paid already (or released): it cannot be paid again, re-priced or cancelled.',
    'Reload the escrow; release it instead of cancelling.',
  ),
  ESCROW_NOT_AWAITING_PAYMENT: code(
    409,
    'The escrow is not waiting for a payment (paid, released or cancelled).',
    'Reload the escrow; nothing is to be paid.',
  ),
  ESCROW_PAYMENT_IN_PROGRESS: code(
    409,
    'A payment of this escrow is already under way.',
    'Wait for it to settle, then reload the escrow.',
  ),
  ESCROW_COIN_MISMATCH: code(
    409,
    'The collection already awaits payment in another coin.',
    'Pay in that coin, or cancel the escrow (POST /v1/escrow/cancel) and fund it again in the new coin.',
  ),
  ESCROW_PRICE_MISMATCH: code(
    409,
    'The collection already awaits payment of another USD amount.',
    'Pay the amount asked, or cancel the escrow (POST /v1/escrow/cancel) and fund it again with the new price.',
  ),
  ESCROW_RELEASE_IN_PROGRESS: code(
    409,
    'The escrow is already being released; its payouts are under way.',
    'Wait for the payouts; nothing needs to be sent again.',
  ),
  ESCROW_NOT_RELEASABLE: code(
    409,
    'The escrow changed state meanwhile and cannot be released now.',
    'Reload the escrow and decide again.',
  ),
  ESCROW_LEG_NOT_FAILED: code(
    409,
    'Only a payout leg that failed for good can be sent again; this one has not.',
    'Reload the leg; it is pending or done.',
  ),
  ESCROW_NOT_FUNDED: code(
    422,
    'The escrow is not paid yet: nothing can be released or split from it. Where the API contract fixes BUSINESS_RULE (releasing it, #15), this is `data.reason` beside `data.code` BUSINESS_RULE.',
    'Pay the escrow first, or wait for its payment to confirm.',
  ),
  ESCROW_UNDERFUNDED: code(
    422,
    'The escrow holds less than the payouts it would send.',
    'Wait for pending payouts to settle; contact support if it persists.',
  ),
  ESCROW_NO_RECEIVER: code(
    422,
    'The escrow has no receiver yet: the collection needs an assigned talent first.',
    'Assign a talent to the collection, then release.',
  ),
  ESCROW_SELF_RELEASE: code(
    422,
    'The payer cannot release an escrow to themselves.',
    'Assign another receiver.',
  ),
  ESCROW_CHILD_FUNDING_PENDING: code(
    422,
    'A child escrow funded from this one is still being funded.',
    'Wait for the child escrow’s funding to settle, then release again.',
  ),
  ESCROW_AMOUNT_OUT_OF_RANGE: code(
    422,
    'The escrow amount cannot be quoted: below 1.00 USD, above 1000000000 USD, too large for the coin, or the coin has no usable USD rate; `data.errors` names the field.',
    'Change the amount (or the coin).',
  ),
  COLLECTION_PRICE_INVALID: code(
    422,
    'The collection’s paymentFee cannot be escrowed (not 1.00 to 1000000000 USD).',
    'Send `usdValue`, or fix the collection’s paymentFee.',
  ),
  COLLECTION_NOT_FUNDED: code(
    422,
    'The collection has no payment yet.',
    'Create it with POST /v1/payment/ first.',
  ),
  RELEASE_AMOUNT_TOO_HIGH: code(
    422,
    'The amount to release is more than what remains in escrow; `data.errors` names the limit.',
    'Release at most what remains.',
  ),
  SPLIT_EXCEEDS_ESCROW: code(
    422,
    'The talent’s share is more than what remains in escrow.',
    'Ask for a smaller share.',
  ),
  PARENT_ESCROW_NOT_FUNDED: code(
    422,
    'The parent collection’s escrow is not paid (or is released or being released): it cannot fund a child escrow.',
    'Pay the parent escrow first.',
  ),
  PARENT_ESCROW_PARTLY_RELEASED: code(
    422,
    'The parent escrow has been partly released and cannot fund a child escrow.',
    'Fund the child escrow directly.',
  ),
} as const
