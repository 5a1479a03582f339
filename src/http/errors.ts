// One error model for the whole API: one catalogue of named codes (src/http/error-codes/, listed
// in docs/errors.md), each with its HTTP status, and factories so services throw them the same way.

import { ACCOUNT_CODES } from './error-codes/accounts.ts'
import { COLLECTION_CODES } from './error-codes/collections.ts'
import { DIRECT_DEPOSIT_CODES } from './error-codes/direct-deposits.ts'
import { ESCROW_CODES } from './error-codes/escrow.ts'
import { OIDC_CODES } from './error-codes/oidc.ts'
import { OPERATION_CODES } from './error-codes/operations.ts'
import { PASSKEY_CODES } from './error-codes/passkeys.ts'
import { PLATFORM_CODES } from './error-codes/platform.ts'
import { REQUEST_CODES } from './error-codes/requests.ts'
import { RESTORE_CODES } from './error-codes/restore.ts'
import { SOCIAL_CODES } from './error-codes/social.ts'
import { VERIFICATION_CODES } from './error-codes/verification.ts'
import { WORK_CODES } from './error-codes/work.ts'

/**
 * The catalogue: every code an error envelope's `data.code` can hold, each with its HTTP status,
 * a one-line meaning and what a client should do (docs/errors.md is generated from it). A client
 * branches on the code, never on the message.
 */
export const ERROR_CODES = {
  ...PLATFORM_CODES,
  ...OIDC_CODES,
  ...RESTORE_CODES,
  ...DIRECT_DEPOSIT_CODES,
  ...VERIFICATION_CODES,
  ...ESCROW_CODES,
  ...REQUEST_CODES,
  ...COLLECTION_CODES,
  ...WORK_CODES,
  ...ACCOUNT_CODES,
  ...PASSKEY_CODES,
  ...SOCIAL_CODES,
  ...OPERATION_CODES,
} as const

type Catalogue = typeof ERROR_CODES

/** Code → HTTP status, derived from the catalogue. */
export const ERROR_STATUS = Object.fromEntries(
  Object.entries(ERROR_CODES).map(([name, info]) => [name, info.status]),
) as { readonly [K in keyof Catalogue]: Catalogue[K]['status'] }

export type ErrorCode = keyof typeof ERROR_STATUS
/** The codes of the catalogue that name a domain reason (not the platform's generic ones). */
export type DomainCode = Exclude<ErrorCode, keyof typeof PLATFORM_CODES>

export interface FieldError {
  path: string
  message: string
}

export class AppError extends Error {
  readonly statusCode: number
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = 'AppError'
    this.statusCode = ERROR_STATUS[code]
  }
}

export const errors = {
  validation: (message: string, fieldErrors: FieldError[] = []) =>
    new AppError('VALIDATION_ERROR', message, { errors: fieldErrors }),
  field: (path: string, message: string) =>
    new AppError('VALIDATION_ERROR', message, { errors: [{ path, message }] }),
  passwordMismatch: () =>
    new AppError('PASSWORD_MISMATCH', 'password and confirmPassword do not match', {
      errors: [{ path: '/confirmPassword', message: 'must match password' }],
    }),
  weakPassword: (path = '/password') =>
    new AppError(
      'WEAK_PASSWORD',
      'Password must be at least 8 characters and use at least 3 of: lower case, upper case, digits, symbols',
      { errors: [{ path, message: 'too weak' }] },
    ),
  invalidCode: (message = 'The code is wrong or has expired') => new AppError('INVALID_CODE', message),
  unauthenticated: (message = 'Authentication required') => new AppError('UNAUTHENTICATED', message),
  invalidCredentials: (message = 'Wrong email or password') => new AppError('INVALID_CREDENTIALS', message),
  emailNotVerified: () =>
    new AppError(
      'EMAIL_NOT_VERIFIED',
      'Verify your email first; a new code can be requested with /v1/auth/verify/resend',
    ),
  forbidden: (message = 'You may not do this') => new AppError('FORBIDDEN', message),
  /** the person reached set a connection filter the caller does not pass (`rule` names it) */
  connectionFiltered: (message: string, rule: Record<string, unknown>) =>
    new AppError('CONNECTION_FILTERED', message, { rule }),
  notFound: (what: string) => new AppError('NOT_FOUND', `${what} not found`),
  /** A named domain error of the catalogue: `errors.named('ESCROW_CANCELLED', 'This escrow was cancelled')`. */
  named: (code: DomainCode, message: string, details: Record<string, unknown> = {}) =>
    new AppError(code, message, details),
  /** Only where the API contract fixes CONFLICT (email taken, escrow released, 2FA on): the named
   * code a client branches on is `data.reason`. Everywhere else: `named`. */
  conflict: (message: string, reason: DomainCode) => new AppError('CONFLICT', message, { reason }),
  insufficientBalance: (message = 'Insufficient balance') => new AppError('INSUFFICIENT_BALANCE', message),
  /** Only where the API contract fixes BUSINESS_RULE (below the minimum, escrow not paid): the
   * named code a client branches on is `data.reason`. Everywhere else: `named`. */
  businessRule: (message: string, reason: DomainCode, details: Record<string, unknown> = {}) =>
    new AppError('BUSINESS_RULE', message, { ...details, reason }),
  tooManyAttempts: (message = 'Too many wrong codes; start again') =>
    new AppError('TOO_MANY_ATTEMPTS', message),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError('RATE_LIMITED', 'Too many requests; try again later', { retryAfter: retryAfterSeconds }),
  payloadTooLarge: (limit: number) =>
    new AppError('PAYLOAD_TOO_LARGE', `The upload is larger than the limit of ${limit} bytes`, { limit }),
  unavailable: (message = 'Service unavailable') => new AppError('UNAVAILABLE', message),
  coinHalted: (coin: string, symbol = coin.toUpperCase()) =>
    new AppError(
      'COIN_HALTED',
      `Payments in ${symbol} are paused while the platform checks its balances; try again later`,
      { coin },
    ),
}
