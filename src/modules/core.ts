// The typed container of every service, as the composition root (src/root.ts) builds it, and its
// place on the Fastify instance (`app.services`, for tests and tools).
import type { Services } from '../root.ts'

export type { Services } from '../root.ts'

declare module 'fastify' {
  interface FastifyInstance {
    services: Services
  }
}
