// Codes any operation can answer: request shape, authentication, limits, availability, and the
// two generic fallbacks of database constraints.
import { code } from './define.ts'

export const PLATFORM_CODES = {
  VALIDATION_ERROR: code(
    400,
    'The path, query string or body does not match the schema, or the body is not valid JSON; `data.errors` names the fields.',
    'Fix the named fields and send again; retrying the same request will not help.',
  ),
  PASSWORD_MISMATCH: code(
    400,
    'password and confirmPassword differ.',
    'Ask the user to type the password twice the same.',
  ),
  WEAK_PASSWORD: code(
    400,
    'The password is under 8 characters or uses fewer than 3 of: lower case, upper case, digits, symbols.',
    'Ask for a stronger password.',
  ),
  INVALID_CODE: code(
    400,
    'The 6-digit code or TOTP is wrong or has expired.',
    'Ask for the code again; after 5 wrong codes the flow is dead (TOO_MANY_ATTEMPTS).',
  ),
  UNAUTHENTICATED: code(
    401,
    'No bearer token, or one that is malformed, expired or revoked, or a tempToken of another flow.',
    'Sign in again (or restart the flow) and send the new token.',
  ),
  INVALID_CREDENTIALS: code(401, 'Wrong email or password.', 'Ask the user for the right credentials.'),
  EMAIL_NOT_VERIFIED: code(
    403,
    'The account has not verified its email yet.',
    'Ask for a new code with /v1/auth/verify/resend and verify the email.',
  ),
  FORBIDDEN: code(
    403,
    'The caller may not act on this record.',
    'Do not retry; only the owner (or an admin) can do it.',
  ),
  CONNECTION_FILTERED: code(
    403,
    'The person reached set a connection filter the caller does not pass; `data.rule` names it.',
    'Show the rule to the user; it changes only when the caller meets it or the person changes it.',
  ),
  NOT_FOUND: code(404, 'Unknown id, or a private record of someone else.', 'Check the id; do not retry.'),
  METHOD_NOT_ALLOWED: code(
    405,
    'The path exists but not with this HTTP method.',
    'Use the method the reference names.',
  ),
  REQUEST_TIMEOUT: code(408, 'The request did not arrive in time.', 'Send it again.'),
  CONFLICT: code(
    409,
    'Generic conflict, kept where the API contract fixes it: email already taken, escrow already released, two-factor already on; also a record that already exists (unique constraint).',
    'Do not repeat the request: reload the record, or choose another value.',
  ),
  PAYLOAD_TOO_LARGE: code(
    413,
    'The body or the upload is over the size limit; `data.limit` when known.',
    'Send less.',
  ),
  UNSUPPORTED_MEDIA_TYPE: code(
    415,
    'The body is not `application/json` (or multipart for uploads).',
    'Send the content type the operation takes.',
  ),
  HEADERS_TOO_LARGE: code(431, 'The request headers are too large.', 'Send smaller headers.'),
  UPGRADE_REQUIRED: code(426, 'The path takes a WebSocket handshake.', 'Connect with a WebSocket client.'),
  INSUFFICIENT_BALANCE: code(
    422,
    'The wallet (or the account) does not hold enough of the coin for this.',
    'Top up the wallet or ask for less.',
  ),
  BUSINESS_RULE: code(
    422,
    'Generic rule refusal, kept where the API contract fixes it: a withdrawal below its minimum, releasing an escrow not paid yet; also a database check constraint.',
    'Read `message` and `data` (e.g. `data.minimum`); change the request or wait for the state it needs.',
  ),
  TOO_MANY_ATTEMPTS: code(
    429,
    'Too many wrong codes or passwords: the flow (or the password check) is locked.',
    'Start the flow again, or wait 15 minutes for passwords.',
  ),
  RATE_LIMITED: code(
    429,
    'Too many requests; `Retry-After` and `data.retryAfter` say when to retry.',
    'Wait the given seconds, then retry.',
  ),
  INTERNAL: code(
    500,
    'An unexpected failure; the body carries no internals.',
    'Retry later; report the request id if it persists.',
  ),
  UNAVAILABLE: code(
    503,
    'A part the operation needs (a rate, the chain, the store) is unavailable right now.',
    'Retry with back-off.',
  ),
  COIN_HALTED: code(
    503,
    'The coin is halted by settlement (reconciliation mismatch, deep reorganisation, operator): nothing is sent or paid in it; `data.coin`.',
    'Retry later, once an operator resumes the coin.',
  ),
} as const
