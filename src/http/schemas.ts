// Shared TypeBox pieces of the public contract: the envelope, ids, timestamps, token objects,
// pagination, the Idempotency-Key header and the error responses each route declares.
//
// Resources carry an `$id`: the OpenAPI document then names them under components.schemas and
// refers to them, so generated clients get one type per resource. Only response schemas carry
// one; request schemas stay anonymous (a validator may meet them more than once).
import { type TSchema, Type } from 'typebox'
import { ID_PATTERN } from '../platform/crypto/ids.ts'
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from './errors.ts'
import { EX } from './examples.ts'

export const Id = (description = 'record identifier (24 hexadecimal characters)') =>
  Type.String({ pattern: ID_PATTERN, description })

export const IdParams = Type.Object({ id: Id() }, { additionalProperties: false })

/** ISO 8601 UTC with milliseconds; Date values serialise to it. */
export const Timestamp = Type.String({ format: 'date-time' })
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()])

/** Strings with a sane upper bound so no field accepts megabytes. */
export const Str = (maxLength = 200, opts: Record<string, unknown> = {}) =>
  Type.String({ maxLength, ...opts })

export const Email = Type.String({ format: 'email', maxLength: 254, description: 'email address' })
export const Password = Type.String({ minLength: 1, maxLength: 128 })
export const Code6 = Type.String({ pattern: '^[0-9]{6}$', description: '6-digit code' })
export const Jwt = Type.String({ minLength: 10, maxLength: 4096, description: 'JWT' })

export const TokenObject = Type.Object(
  {
    token: Type.String({ description: 'the JWT' }),
    token_type: Type.Literal('jwt'),
    expiresIn: Type.Integer({ description: 'expiry, Unix milliseconds' }),
  },
  {
    $id: 'Token',
    description: 'A token: a temporary token of one step of a flow (15 minutes), or the permanent token.',
    examples: [{ token: EX.tempJwt, token_type: 'jwt', expiresIn: EX.tempExpiresIn }],
  },
)

/**
 * The success envelope around `data`. `message` is the message the route answers; the documented
 * example is built from it and the examples of `data` (or given whole as `example`).
 */
export function envelope<T extends TSchema>(data: T, message = 'Success', example?: unknown) {
  const sample = example ?? exampleOf(data)
  return Type.Object(
    {
      status: Type.Literal('success'),
      message: Type.String({ examples: [message] }),
      data,
    },
    {
      description: `Success: \`${message}\`${typeof (data as { description?: unknown }).description === 'string' ? `. ${(data as { description?: string }).description}` : ''}`,
      ...(sample === undefined ? {} : { examples: [{ status: 'success', message, data: sample }] }),
    },
  )
}

/**
 * An example value of a schema: its own first example, or one built from its parts (array items,
 * object properties, the first variant of a union). Undefined when a required part has none.
 */
export function exampleOf(schema: unknown): unknown {
  const s = schema as Record<string, any>
  if (!s || typeof s !== 'object') return undefined
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0]
  if ('const' in s) return s.const
  if (Array.isArray(s.anyOf)) {
    for (const variant of s.anyOf) {
      const v = exampleOf(variant)
      if (v !== undefined) return v
    }
    return undefined
  }
  if (s.type === 'null') return null
  if (s.type === 'array') {
    const item = exampleOf(s.items)
    return item === undefined ? undefined : [item]
  }
  if (s.type === 'object' && s.properties) {
    const required = new Set<string>(s.required ?? [])
    const out: Record<string, unknown> = {}
    for (const [key, prop] of Object.entries<unknown>(s.properties)) {
      const v = exampleOf(prop)
      if (v === undefined) {
        if (required.has(key)) return undefined
        continue
      }
      out[key] = v
    }
    return out
  }
  return undefined
}

export const EmptyObject = Type.Object({}, { additionalProperties: false, examples: [{}] })

export const ErrorEnvelope = Type.Object(
  {
    status: Type.Literal('error'),
    message: Type.String(),
    data: Type.Object(
      {
        code: Type.String({
          description:
            'what went wrong, for programs: a code of the error catalogue (docs/errors.md); branch on it, never on `message`',
          enum: Object.keys(ERROR_STATUS),
        }),
        errors: Type.Optional(
          Type.Array(
            Type.Object({
              path: Type.String({ description: 'JSON pointer of the field, e.g. `/email`' }),
              message: Type.String(),
            }),
            { description: 'validation failures, one per field' },
          ),
        ),
        retryAfter: Type.Optional(
          Type.Number({ description: 'RATE_LIMITED: seconds until a retry can pass' }),
        ),
        reason: Type.Optional(
          Type.String({
            description:
              'with CONFLICT or BUSINESS_RULE where the API contract fixes them: the named code to branch on (e.g. EMAIL_TAKEN)',
            enum: Object.keys(ERROR_STATUS),
          }),
        ),
      },
      { additionalProperties: true },
    ),
  },
  {
    $id: 'ErrorEnvelope',
    description: 'The answer of every failure: a human `message` and the machine-readable `data.code`.',
    examples: [{ status: 'error', message: 'collection not found', data: { code: 'NOT_FOUND' } }],
  },
)

const errRef = Type.Ref('ErrorEnvelope')

/** Why an operation answers an error code: a sentence, or a sentence and the message it answers. */
export type ErrorCase = string | { when: string; message: string; data?: Record<string, unknown> }
export type ErrorCases = Partial<Record<ErrorCode, ErrorCase>>
type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode]

/** The message and extra data of a code's example when a route gives none (else its description). */
const SAMPLES: Partial<Record<ErrorCode, { message: string; data?: Record<string, unknown> }>> = {
  VALIDATION_ERROR: {
    message: 'Invalid request: /email must match format "email"',
    data: { errors: [{ path: '/email', message: 'must match format "email"' }] },
  },
  PASSWORD_MISMATCH: {
    message: 'password and confirmPassword do not match',
    data: { errors: [{ path: '/confirmPassword', message: 'must match password' }] },
  },
  WEAK_PASSWORD: {
    message:
      'Password must be at least 8 characters and use at least 3 of: lower case, upper case, digits, symbols',
    data: { errors: [{ path: '/password', message: 'too weak' }] },
  },
  INVALID_CODE: { message: 'The code is wrong or has expired' },
  UNAUTHENTICATED: { message: 'Missing bearer token' },
  INVALID_CREDENTIALS: { message: 'Wrong email or password' },
  EMAIL_NOT_VERIFIED: {
    message: 'Verify your email first; a new code can be requested with /v1/auth/verify/resend',
  },
  FORBIDDEN: { message: 'You may not do this' },
  CONNECTION_FILTERED: {
    message: 'This user accepts invites only from people with afroScore greater than 50',
    data: {
      rule: {
        _id: '6b04837cbce238a5cbe00a90',
        event: 'SEND_INVITE',
        key: 'afroScore',
        decider: 'greater_than',
        value: 50,
      },
    },
  },
  NOT_FOUND: { message: 'record not found' },
  METHOD_NOT_ALLOWED: { message: 'Method not allowed' },
  REQUEST_TIMEOUT: { message: 'Request timeout' },
  CONFLICT: { message: 'This record already exists' },
  PAYLOAD_TOO_LARGE: { message: 'The request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { message: 'Unsupported content type; send application/json' },
  HEADERS_TOO_LARGE: { message: 'Request headers too large' },
  UPGRADE_REQUIRED: { message: 'Connect with a WebSocket handshake' },
  INSUFFICIENT_BALANCE: { message: 'Insufficient balance' },
  BUSINESS_RULE: { message: 'The change breaks a business rule' },
  TOO_MANY_ATTEMPTS: { message: 'Too many wrong codes; start again' },
  RATE_LIMITED: { message: 'Too many requests; try again later', data: { retryAfter: 840 } },
  INTERNAL: {
    message: 'Internal error; quote request id 0b7e6c1e-8d7f-4c55-9a65-1f0d2f0a6b3e when reporting it',
  },
  UNAVAILABLE: { message: 'The USD rate of this coin is unavailable right now; try again shortly' },
  COIN_HALTED: {
    message: 'Payments in USDC are paused while the platform checks its balances; try again later',
    data: { coin: 'usdc' },
  },
}

const ALWAYS: ErrorCases = {
  VALIDATION_ERROR:
    'the path, query string or body does not match the schema, or the body is not valid JSON (`data.errors` names the fields)',
}

const LAST: ErrorCases = {
  INTERNAL: 'an unexpected failure; the body carries no internals, and the log has the request id',
}

/**
 * The error responses of one operation: every code it can answer, grouped by HTTP status, each
 * named with when it happens, with an example envelope per code. 400 VALIDATION_ERROR (any request
 * can be malformed) and 500 INTERNAL are always there.
 */
export function errorResponses(cases: ErrorCases) {
  const all: ErrorCases = { ...ALWAYS, ...cases, ...LAST }
  const byStatus = new Map<number, Array<[ErrorCode, ErrorCase]>>()
  for (const [code, c] of Object.entries(all) as Array<[ErrorCode, ErrorCase]>) {
    const status = ERROR_STATUS[code]
    byStatus.set(status, [...(byStatus.get(status) ?? []), [code, c]])
  }
  const responses: Partial<Record<ErrorStatus, TSchema>> = {}
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const when = (c: ErrorCase) => (typeof c === 'string' ? c : c.when)
    responses[status as ErrorStatus] = <TSchema>{
      description: list.map(([code, c]) => `\`${code}\`: ${when(c)}.`).join(' '),
      content: {
        'application/json': {
          schema: errRef,
          examples: Object.fromEntries(
            list.map(([code, c]) => {
              const fallback = SAMPLES[code] ?? { message: ERROR_CODES[code].description }
              const sample =
                typeof c === 'string' ? fallback : { message: c.message, data: c.data ?? fallback.data }
              return [
                code,
                {
                  summary: when(c),
                  value: { status: 'error', message: sample.message, data: { code, ...sample.data } },
                },
              ]
            }),
          ),
        },
      },
    }
  }
  return responses
}

/** The 409 cases of an operation that honours `Idempotency-Key`. */
export const IDEMPOTENCY_CASES = {
  IDEMPOTENCY_KEY_REUSED: {
    when: 'the Idempotency-Key was used with another request',
    message: 'This Idempotency-Key was used with a different request',
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    when: 'a request with the Idempotency-Key is still running',
    message: 'A request with this Idempotency-Key is in progress',
  },
} satisfies ErrorCases

/** The error responses of a route that needs the bearer token: 401 UNAUTHENTICATED added. */
export function guardedErrors(cases: ErrorCases = {}) {
  return errorResponses({
    UNAUTHENTICATED: 'no bearer token, or one that is malformed, expired or revoked',
    ...cases,
  })
}

/** `security` of a route that needs the bearer token (`Authorization: Bearer <token>`). */
export const bearer = [{ bearer: [] }]
/** `security` of a public route: no token needed. */
export const noAuth = []

/**
 * The `Idempotency-Key` request header of a money-moving POST, for routes to spread into their
 * schema. The rule is the one `idempotent()` applies (1 to 200 visible ASCII characters).
 */
export const withIdempotencyKey = {
  headers: Type.Object({
    'Idempotency-Key': Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^[\\x21-\\x7e]+$',
        description:
          'Makes a retry safe: the same key with the same body answers the first response again (with the header `idempotent-replayed: true`) without doing the work twice; the same key with another body is 409 IDEMPOTENCY_KEY_REUSED. 1 to 200 visible ASCII characters, e.g. a UUID; keys are per account. A request that failed leaves no record and can be retried with the same key.',
        examples: ['4f9c2d7e-3b1a-4c8e-9f60-2a7d5b1c0e93'],
      }),
    ),
  }),
}

export const PaginationQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 12 })),
}

export function ok<T>(data: T, message = 'Success') {
  return { status: 'success' as const, message, data }
}
