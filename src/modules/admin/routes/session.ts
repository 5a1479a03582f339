// The admin session: its state, a mailed code, the step-up with a second factor, and its end.
// These routes need an admin's token but no elevation (they are how a session gets one).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../../http/auth.ts'
import { EmptyObject, envelope, ok } from '../../../http/schemas.ts'
import type { AdminAccess } from '../access.ts'
import { AdminSession, ElevateBody } from '../schemas.ts'
import { actorOf, adminErrors, guardAdmin, security, tags } from './common.ts'

const NOT_ADMIN = { when: 'the caller is not an admin', message: 'Only an admin may do this' }

export const adminSessionRoutes: FastifyPluginAsyncTypebox<{ access: AdminAccess }> = async (
  app,
  { access },
) => {
  guardAdmin(app, access)

  app.get(
    '/v1/admin/session',
    {
      schema: {
        operationId: 'adminSession',
        summary: 'The admin session: whether it is elevated, until when, and which second factor to use',
        tags,
        security,
        response: { 200: envelope(AdminSession), ...adminErrors({ FORBIDDEN: NOT_ADMIN }) },
      },
    },
    async (req) => ok(await access.status(caller(req))),
  )

  app.post(
    '/v1/admin/session/code',
    {
      schema: {
        operationId: 'adminSessionCode',
        summary: 'Mail a 6-digit code for the step-up (admins without an authenticator app)',
        description:
          'The same code as POST /v1/account/2fa/email: 15 minutes, single use. With an authenticator app on, its codes are used instead (422).',
        tags,
        security,
        response: {
          200: envelope(EmptyObject, 'A security code was sent to your email'),
          ...adminErrors({
            FORBIDDEN: NOT_ADMIN,
            TWO_FACTOR_USES_APP: 'the admin uses an authenticator app: send its current code instead',
            AUTHENTICATOR_REQUIRED:
              'the admin has no authenticator app yet: mailed codes do not unlock the admin pages',
          }),
        },
      },
    },
    async (req) => {
      await access.sendCode(caller(req))
      return ok({}, 'A security code was sent to your email')
    },
  )

  app.post(
    '/v1/admin/session',
    {
      schema: {
        operationId: 'elevateAdminSession',
        summary: 'Step up: a second factor elevates this session for the admin routes',
        description:
          'The authenticator code (two-factor `google_auth`) or the code mailed by POST /v1/admin/session/code. The session of the bearer token is elevated for ADMIN_SESSION_TTL_MS (15 minutes by default); send the code again to extend it. Wrong codes count like every code: the fifth is 429.',
        tags,
        security,
        body: ElevateBody,
        response: {
          200: envelope(AdminSession, 'Admin session elevated'),
          ...adminErrors({
            FORBIDDEN: NOT_ADMIN,
            INVALID_CODE: 'the code is wrong, used or expired, or no code was mailed',
            TOO_MANY_ATTEMPTS: '5 wrong codes: ask for a new one',
          }),
        },
      },
    },
    async (req) => ok(await access.elevate(actorOf(req), req.body.code), 'Admin session elevated'),
  )

  app.delete(
    '/v1/admin/session',
    {
      schema: {
        operationId: 'endAdminSession',
        summary: 'End the elevation of this session (the token stays valid as a normal one)',
        tags,
        security,
        response: {
          200: envelope(EmptyObject, 'Admin session ended'),
          ...adminErrors({ FORBIDDEN: NOT_ADMIN }),
        },
      },
    },
    async (req) => {
      await access.end(caller(req))
      return ok({}, 'Admin session ended')
    },
  )
}
