// What every admin route shares: the guard (bearer token, admin role, elevated session), the actor
// of an action, and the error responses the OpenAPI document names.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { caller } from '../../../http/auth.ts'
import { errors } from '../../../http/errors.ts'
import type { ErrorCases } from '../../../http/schemas.ts'
import { bearer, guardedErrors } from '../../../http/schemas.ts'
import type { AdminAccess } from '../access.ts'
import type { AdminActor } from '../audit.ts'

export const tags = ['admin']
export const security = bearer

export const FORBIDDEN_ADMIN = {
  when: 'the caller is not an operator, the session has no fresh second factor (POST /v1/admin/session), or the operator’s role may not call this route (the roles table in docs/admin.md)',
  message: 'A fresh second factor is required: POST /v1/admin/session with an authenticator or emailed code',
}

/** The error responses of an admin route: 401 (also: the session was idle too long), 403 and the route's own. */
export function adminErrors(cases: ErrorCases = {}) {
  return guardedErrors({ FORBIDDEN: FORBIDDEN_ADMIN, ...cases })
}

/**
 * Every route of `app` (an encapsulated plugin) needs an operator's token with an elevated session
 * and a role that may call the route (roles.ts, by the route's operationId): the token is checked
 * first (401), the role and the elevation just before the body's schema (403), so a normal user
 * learns nothing from validation.
 */
export function guardElevated(app: FastifyInstance, access: AdminAccess) {
  app.addHook('onRequest', app.authenticate)
  app.addHook('preValidation', async (req) => {
    const schema = req.routeOptions.schema as { operationId?: string } | undefined
    await access.requireElevated(caller(req), schema?.operationId)
  })
}

/**
 * Every route of `app` (an encapsulated plugin) needs an operator's token and no elevation (the
 * routes by which a session gets one): the token first (401), the admin role just before the
 * body's schema (403), so a normal user learns nothing from validation.
 */
export function guardAdmin(app: FastifyInstance, access: AdminAccess) {
  app.addHook('onRequest', app.authenticate)
  app.addHook('preValidation', async (req) => {
    await access.requireAdmin(caller(req))
  })
}

export function actorOf(req: FastifyRequest): AdminActor {
  const { userId, sessionId } = caller(req)
  return { userId, sessionId, requestId: req.id ?? null, ip: req.ip ?? null }
}

export function pageOf(q: { page?: number | undefined; limit?: number | undefined }) {
  return { page: q.page ?? 1, limit: q.limit ?? 12 }
}

/** A list's creation window (`from` inclusive, `to` exclusive) as dates, `from` not after `to`. */
export function createdRange(q: { from?: string | undefined; to?: string | undefined }) {
  const from = q.from ? new Date(q.from) : undefined
  const to = q.to ? new Date(q.to) : undefined
  if (from && to && from > to) throw errors.field('/from', 'must not be after `to`')
  return { from, to }
}
