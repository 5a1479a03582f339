// The bearer-token guard: a route that declares `onRequest: app.authenticate` gets
// `request.auth` or answers 401 before its body is even read.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { errors } from './errors.ts'

export interface AuthContext {
  userId: string
  sessionId: string
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext
  }
  interface FastifyInstance {
    authenticate: (request: FastifyRequest) => Promise<void>
  }
}

export type SessionResolver = (bearer: string) => Promise<AuthContext | undefined>

export function registerAuth(app: FastifyInstance, resolve: SessionResolver) {
  app.decorateRequest('auth', undefined)
  app.decorate('authenticate', async (request: FastifyRequest) => {
    const header = request.headers.authorization
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
    if (!match) throw errors.unauthenticated('Missing bearer token')
    const ctx = await resolve(match[1]!)
    if (!ctx) throw errors.unauthenticated('Invalid, expired or revoked token')
    request.auth = ctx
  })
}

/** The authenticated caller of a guarded route. */
export function caller(request: FastifyRequest): AuthContext {
  if (!request.auth) throw errors.unauthenticated()
  return request.auth
}

export function requestMeta(request: FastifyRequest) {
  const ua = request.headers['user-agent']
  return { ip: request.ip ?? null, userAgent: typeof ua === 'string' ? ua : null }
}
