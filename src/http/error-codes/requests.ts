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
} as const
