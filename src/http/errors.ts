// One error model for the whole API: a fixed list of codes, one code → HTTP status table
// (see README), and factories so services throw the same errors the same way.

export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  PASSWORD_MISMATCH: 400,
  WEAK_PASSWORD: 400,
  INVALID_CODE: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  EMAIL_NOT_VERIFIED: 403,
  FORBIDDEN: 403,
  CONNECTION_FILTERED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  UPGRADE_REQUIRED: 426,
  INSUFFICIENT_BALANCE: 422,
  BUSINESS_RULE: 422,
  TOO_MANY_ATTEMPTS: 429,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  /** a coin halted by settlement (reconciliation mismatch, deep chain reorganisation, operator):
   * nothing is sent or paid in it until an operator resumes it; retry later */
  COIN_HALTED: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

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
  conflict: (message: string) => new AppError('CONFLICT', message),
  insufficientBalance: (message = 'Insufficient balance') => new AppError('INSUFFICIENT_BALANCE', message),
  businessRule: (message: string, details: Record<string, unknown> = {}) =>
    new AppError('BUSINESS_RULE', message, details),
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
