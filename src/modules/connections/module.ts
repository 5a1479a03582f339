// Connection filters: a user's rules on who may reach them (/v1/conn-filter).
import type { FastifyInstance } from 'fastify'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import { connectionFilterRoutes } from './routes.ts'
import { ConnectionFilterService, type PeopleFacts } from './service.ts'

export function buildConnectionFilters(d: { db: Db; clock: Clock; people: PeopleFacts }) {
  return { connectionFilters: new ConnectionFilterService(d) }
}

export async function connectionFiltersHttp(
  app: FastifyInstance,
  s: { connectionFilters: ConnectionFilterService },
) {
  await app.register(connectionFilterRoutes, { filters: s.connectionFilters })
}
