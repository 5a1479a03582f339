// Connection filters: a user's rules on who may reach them (/v1/conn-filter).
import type { FastifyInstance } from 'fastify'
import type { Db } from '../../db/index.ts'
import type { ReadCaches } from '../../db/read-cache.ts'
import type { Clock } from '../../platform/clock.ts'
import { connectionFilterRoutes } from './routes.ts'
import { ConnectionFilterService, type FilterRow, type PeopleFacts } from './service.ts'

export function buildConnectionFilters(d: {
  db: Db
  clock: Clock
  people: PeopleFacts
  caches?: ReadCaches
}) {
  const { caches, ...rest } = d
  return {
    connectionFilters: new ConnectionFilterService({
      ...rest,
      // Most people have no rules: the empty answer is what the process keeps most.
      ...(caches ? { rules: caches.create<FilterRow[]>('connection filters', ['connection_filters']) } : {}),
    }),
  }
}

export async function connectionFiltersHttp(
  app: FastifyInstance,
  s: { connectionFilters: ConnectionFilterService },
) {
  await app.register(connectionFilterRoutes, { filters: s.connectionFilters })
}
