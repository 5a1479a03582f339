// The OpenAPI document (`/openapi.json`, generated from every route's TypeBox schemas) and the
// reference page rendered from it at `/docs`.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { ErrorEnvelope } from './schemas.ts'

export async function registerOpenApi(app: FastifyInstance, config: Config) {
  app.addSchema(ErrorEnvelope)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'WorkPay API',
        version: '1.0.0',
        description:
          'Accounts, escrow, wallets, withdrawals, transactions, collections and files. Every response is the envelope `{ status, message, data }`; errors carry `data.code`.',
      },
      servers: [{ url: config.publicUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
    refResolver: { buildLocalReference: (json, _base, _frag, i) => (json.$id as string) ?? `def-${i}` },
  })
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true })

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
