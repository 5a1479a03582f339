// A typed client of the WorkPay API: openapi-fetch over the types generated from the service's
// OpenAPI document (schema.ts). Paths, parameters, bodies and answers are checked by TypeScript.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch'
import type { components, paths } from './schema.ts'

export type * from './schema.ts'

/** The error envelope every failure answers; `data.code` says what went wrong. */
export type ApiError = components['schemas']['ErrorEnvelope']
export type WorkPayClient = Client<paths>

export interface WorkPayClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** the service's address, e.g. `http://127.0.0.1:3000` */
  baseUrl: string
  /** the permanent token (or a function giving the current one); sent as `Authorization: Bearer` */
  token?: string | (() => string | undefined)
}

export function createWorkPayClient({ token, ...options }: WorkPayClientOptions): WorkPayClient {
  const client = createClient<paths>(options)
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
export function describeError(error: ApiError | undefined): string {
  return error ? `${error.data.code}: ${error.message}` : 'no answer'
}
