// Collection schemas and stores (/v2/collection-schema, /v2/collection-store, and the admins'
// /v1/admin/collection-schemas).
import type { FastifyInstance } from 'fastify'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import type { AdminAccess } from '../admin/types.ts'
import { adminSchemaRoutes, storeRoutes } from './routes.ts'
import { StoreService } from './service.ts'

export function buildStores(d: { db: Db; clock: Clock }) {
  return { stores: new StoreService(d) }
}

export async function storesHttp(
  app: FastifyInstance,
  s: { stores: StoreService; admin: { access: AdminAccess } },
) {
  await app.register(storeRoutes, { stores: s.stores })
  await app.register(adminSchemaRoutes, { stores: s.stores, access: s.admin.access })
}
