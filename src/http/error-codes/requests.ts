// Codes of retried requests: Idempotency-Key reuse (HTTP) and idempotency keys of ledger movements.
import { code } from './define.ts'

export const REQUEST_CODES = {
  IDEMPOTENCY_KEY_REUSED: code(
    409,
    'The Idempotency-Key (or the movement’s idempotency key) was used before with another request.',
    'Use a new key for a new request; send the same body to replay the first answer.',
  ),
  IDEMPOTENCY_KEY_IN_PROGRESS: code(
    409,
    'A request with this Idempotency-Key is still running (or was just released).',
    'Wait a moment and retry with the same key and body.',
  ),
  HOLD_ALREADY_POSTED: code(
    409,
    'The ledger hold was already posted under another idempotency key: a hold is posted or voided once.',
    'Read the hold’s outcome instead; retry a post only with the key it was first made with.',
  ),
  HOLD_ALREADY_VOIDED: code(
    409,
    'The ledger hold was already voided under another idempotency key: a hold is posted or voided once.',
    'Read the hold’s outcome instead; a new reservation takes a new hold.',
  ),
  HOLD_EXPIRED: code(
    409,
    'The ledger hold’s timeout passed: it was voided (or is about to be) and can no longer be posted or voided.',
    'Take a new hold if the reservation is still needed.',
  ),
} as const
