// HTTP for the account surface (spec #36–#46).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { commonErrors, envelope, ok } from '../../http/schemas.ts'
import { FullUser } from './schemas.ts'
import type { AccountService } from './service.ts'

export const accountRoutes: FastifyPluginAsyncTypebox<{ accounts: AccountService }> = async (
  app,
  { accounts },
) => {
  const tags = ['account']

  app.get(
    '/v1/account',
    {
      schema: {
        operationId: 'getAccount',
        summary: 'The caller’s full profile (#36)',
        tags,
        security: [{ bearer: [] }],
        response: { 200: envelope(FullUser), ...commonErrors },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await accounts.getFullUser(caller(req).userId), 'Account'),
  )
}
