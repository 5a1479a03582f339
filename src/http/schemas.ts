// Shared TypeBox pieces of the public contract: the envelope, ids, timestamps, token objects,
// pagination and the error responses every route declares.
import { type TSchema, Type } from 'typebox'
import { ID_PATTERN } from '../platform/crypto/ids.ts'

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

export const TokenObject = Type.Object({
  token: Type.String(),
  token_type: Type.Literal('jwt'),
  expiresIn: Type.Integer({ description: 'expiry, Unix milliseconds' }),
})

export function envelope<T extends TSchema>(data: T, description?: string) {
  return Type.Object(
    {
      status: Type.Literal('success'),
      message: Type.String(),
      data,
    },
    description ? { description } : {},
  )
}

export const EmptyObject = Type.Object({}, { additionalProperties: false })

export const ErrorEnvelope = Type.Object(
  {
    status: Type.Literal('error'),
    message: Type.String(),
    data: Type.Object(
      {
        code: Type.String(),
        errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
        retryAfter: Type.Optional(Type.Number()),
      },
      { additionalProperties: true },
    ),
  },
  { $id: 'ErrorEnvelope', description: 'error' },
)

const errRef = Type.Ref('ErrorEnvelope')

/** Error responses that every route may answer. */
export const commonErrors = {
  400: errRef,
  401: errRef,
  403: errRef,
  404: errRef,
  409: errRef,
  422: errRef,
  429: errRef,
  500: errRef,
}

export const PaginationQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 12 })),
}

export function ok<T>(data: T, message = 'Success') {
  return { status: 'success' as const, message, data }
}
