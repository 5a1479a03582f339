// A typed client of the WorkPay API: openapi-fetch over the types generated from the service's
// OpenAPI document (schema.ts). Paths, parameters, bodies and answers are checked by TypeScript.
import createClient, { type Client, type ClientOptions, type ClientPathsWithMethod } from 'openapi-fetch'
import { ERROR_STATUS, type ErrorCode } from './errors.ts'
import type { components, paths } from './schema.ts'

export type * from './schema.ts'
export {
  type ReservesCoinReport,
  type ReservesVerification,
  reservesAttestationMessage,
  reservesAttestationOfCoinsFile,
  reservesLeafHash,
  reservesSignedBy,
  type VerifyReservesOptions,
  verifyReserves,
} from './verify-reserves.ts'
export { ERROR_STATUS, type ErrorCode }

type Envelope = components['schemas']['ErrorEnvelope']
/** The error envelope every failure answers; `data.code`, a code of the catalogue, says what went wrong. */
export type ApiError = Omit<Envelope, 'data'> & { data: Envelope['data'] & { code: ErrorCode } }
/**
 * A second signature per method that only a path the API does not have reaches: the compiler then
 * says which argument is wrong ('"/v1/acount"' is not assignable to the paths of GET) instead of
 * openapi-fetch's "Expected 2 arguments, but got 1".
 */
type UnknownPath<M extends 'get' | 'put' | 'post' | 'delete' | 'patch'> = (
  url: ClientPathsWithMethod<Client<paths>, M>,
  init?: never,
) => never
export type WorkPayClient = Client<paths> & {
  GET: UnknownPath<'get'>
  PUT: UnknownPath<'put'>
  POST: UnknownPath<'post'>
  DELETE: UnknownPath<'delete'>
  PATCH: UnknownPath<'patch'>
}

export interface WorkPayClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** the service's address, e.g. `http://127.0.0.1:3000` */
  baseUrl: string
  /** the permanent token (or a function giving the current one); sent as `Authorization: Bearer` */
  token?: string | (() => string | undefined)
}

export function createWorkPayClient({ token, ...options }: WorkPayClientOptions): WorkPayClient {
  const client = createClient<paths>(options) as WorkPayClient
  client.use({
    onRequest({ request }) {
      const value = typeof token === 'function' ? token() : token
      if (value && !request.headers.has('authorization'))
        request.headers.set('authorization', `Bearer ${value}`)
      return request
    },
  })
  return client
}

/** A readable line for a failure envelope: `NOT_FOUND: collection not found`. */
export function describeError(error: Envelope | undefined): string {
  return error ? `${error.data.code}: ${error.message}` : 'no answer'
}

/**
 * The catalogue's code of a failure envelope (any operation's `error`), typed for branching:
 * `if (errorCode(error) === 'INSUFFICIENT_BALANCE') ...`; undefined for no error or a code this
 * client does not know (a newer service).
 */
export function errorCode(error: Envelope | undefined): ErrorCode | undefined {
  const code = error?.data.code
  return code !== undefined && Object.hasOwn(ERROR_STATUS, code) ? (code as ErrorCode) : undefined
}
