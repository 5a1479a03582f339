// Cross-origin calls from browsers: allowed only for the origins in CORS_ORIGINS (none by default,
// in every mode). Bearer tokens travel in the Authorization header, never in cookies, so
// credentials stay off and `*` (any origin) is possible too. The request id and Retry-After are
// readable by the calling page.
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'

export const CORS_EXPOSED_HEADERS = ['x-request-id', 'Retry-After', 'idempotent-replayed']

export async function registerCors(app: FastifyInstance, config: Config) {
  if (config.corsOrigins.length === 0) return
  const any = config.corsOrigins[0] === '*'
  await app.register(cors, {
    origin: any ? '*' : config.corsOrigins,
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
    strictPreflight: true,
  })
}
