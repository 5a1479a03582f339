// Read routes of the operator console's dashboard and plots, behind the same guard as every admin
// route (an admin token with a fresh second factor).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { envelope, ok } from '../../http/schemas.ts'
import type { AdminAccess } from './access.ts'
import { adminErrors, guardElevated, security, tags } from './routes/common.ts'
import type { AdminStats } from './stats.ts'
import { Flows, FlowsQuery, StatsOverview, TransferAges } from './stats-schemas.ts'

export const adminStatsRoutes: FastifyPluginAsyncTypebox<{
  stats: AdminStats
  access: AdminAccess
}> = async (app, { stats, access }) => {
  guardElevated(app as unknown as FastifyInstance, access)

  app.get(
    '/v1/admin/stats/overview',
    {
      schema: {
        operationId: 'adminStatsOverview',
        summary: 'Custody per coin, the job queue and transfers in flight with their ages',
        tags,
        security,
        response: { 200: envelope(StatsOverview), ...adminErrors() },
      },
    },
    async () => ok(await stats.overview()),
  )

  app.get(
    '/v1/admin/stats/transfer-ages',
    {
      schema: {
        operationId: 'adminStatsTransferAges',
        summary: 'Open outgoing transfers counted per age bucket and state',
        tags,
        security,
        response: { 200: envelope(TransferAges), ...adminErrors() },
      },
    },
    async () => ok(await stats.transferAges()),
  )

  app.get(
    '/v1/admin/stats/flows',
    {
      schema: {
        operationId: 'adminStatsFlows',
        summary: 'Completed deposits, and value that left for outside addresses, of a coin per hour or day',
        tags,
        security,
        querystring: FlowsQuery,
        response: {
          200: envelope(Flows),
          ...adminErrors({ VALIDATION_ERROR: 'an unknown coin, or days out of 1–90' }),
        },
      },
    },
    async (req) => ok(await stats.flows(req.query.coin.toLowerCase(), req.query.days ?? 14)),
  )
}
