// HTTP for two-factor authentication: setup (#41–#43), codes for sensitive actions (#44) and the
// second login step (#5, #6).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Config } from '../../config.ts'
import { caller, requestMeta } from '../../http/auth.ts'
import { authLimiter } from '../../http/rate-limit.ts'
import { commonErrors, EmptyObject, envelope, ok } from '../../http/schemas.ts'
import {
  FullUserWithToken,
  InitiateTwoFaBody,
  InitiateTwoFaData,
  LoginTwoFaBody,
  SensitiveCodeBody,
  TwoFaCodeBody,
  TwoFaEmailCodeBody,
} from './schemas.ts'
import type { AccountSecurityService } from './security.ts'

export const twoFactorRoutes: FastifyPluginAsyncTypebox<{
  security: AccountSecurityService
  config: Config
}> = async (app, { security, config }) => {
  const tags = ['account']
  const guarded = { security: [{ bearer: [] }] }
  const emailOf = (req: { body: unknown }) => {
    const email = (req.body as { email?: unknown } | undefined)?.email
    return typeof email === 'string' ? email : undefined
  }
  const limit = (group: string) => authLimiter(app, config.rateLimit, group, emailOf)

  app.post(
    '/v1/account/initiate/2fa',
    {
      schema: {
        operationId: 'initiateTwoFa',
        summary: 'Start setting up two-factor authentication (#41)',
        description:
          '`email`: a 6-digit code is mailed; answers `{ type }`. `google_auth`: answers `{ type, secret, otpauthUrl }` for an authenticator app (RFC 6238: SHA-1, 6 digits, 30 s). Either way #42 with the code turns it on. 409 when two-factor is already on.',
        tags,
        ...guarded,
        body: InitiateTwoFaBody,
        response: { 202: envelope(InitiateTwoFaData), ...commonErrors },
      },
      onRequest: app.authenticate,
      // Each call mails a code (email) or makes a new secret: limited like the other code routes.
      preHandler: limit('2fa-initiate'),
    },
    async (req, reply) => {
      const data = await security.initiateTwoFa(caller(req).userId, req.body.type)
      return reply
        .code(202)
        .send(
          ok(
            data,
            data.type === 'email'
              ? 'A code was sent to your email; confirm it to turn two-factor on'
              : 'Add the secret to your authenticator app and confirm with its code',
          ),
        )
    },
  )

  app.post(
    '/v1/account/activate/2fa',
    {
      schema: {
        operationId: 'activateTwoFa',
        summary: 'Turn two-factor on with the setup code (#42)',
        description:
          'The code mailed by #41 (email) or the current authenticator code (google_auth). Wrong codes count; the fifth kills the setup (429).',
        tags,
        ...guarded,
        body: TwoFaCodeBody,
        response: { 200: envelope(EmptyObject), ...commonErrors },
      },
      onRequest: app.authenticate,
      preHandler: limit('2fa-activate'),
    },
    async (req) => {
      await security.activateTwoFa(caller(req).userId, req.body.code)
      return ok({}, 'Two-factor authentication is on')
    },
  )

  app.post(
    '/v1/account/deactivate/2fa',
    {
      schema: {
        operationId: 'deactivateTwoFa',
        summary: 'Turn two-factor off (#43)',
        description:
          'Needs a current code of the active method: the authenticator code (google_auth) or a code mailed by POST /v1/account/2fa/email (email). 409 when two-factor is off.',
        tags,
        ...guarded,
        body: TwoFaCodeBody,
        response: { 200: envelope(EmptyObject), ...commonErrors },
      },
      onRequest: app.authenticate,
      preHandler: limit('2fa-deactivate'),
    },
    async (req) => {
      await security.deactivateTwoFa(caller(req).userId, req.body.code)
      return ok({}, 'Two-factor authentication is off')
    },
  )

  app.post(
    '/v1/account/2fa/email',
    {
      schema: {
        operationId: 'sendSensitiveCode',
        summary: 'Email a code for a sensitive action (#44)',
        description:
          'Mails a 6-digit code (15 minutes, single use) that confirms a sensitive action: turning email two-factor off, exporting the wallet key. `emailType` may only be `two_fa` (the default); a `password`, when sent, must be right. With an authenticator app on, its codes are used instead (422). Earlier codes of the same request stay valid until their own 15 minutes pass (the last 3 codes at most), so a mail that arrives late still works; any one of them used ends the request, and wrong codes count across resends.',
        tags,
        ...guarded,
        body: SensitiveCodeBody,
        response: { 200: envelope(EmptyObject), ...commonErrors },
      },
      onRequest: app.authenticate,
      // The body is optional: no body means the defaults.
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {}
      },
      preHandler: limit('2fa-email'),
    },
    async (req) => {
      await security.sendSensitiveCode(caller(req).userId, req.body)
      return ok({}, 'A security code was sent to your email')
    },
  )

  app.post(
    '/v1/auth/login/2fa',
    {
      schema: {
        operationId: 'loginTwoFa',
        summary: 'Finish a two-factor login (#5)',
        description:
          'The tempToken from #4 and the emailed code (email) or the authenticator code (google_auth). Returns the full User form with the permanent token. Five wrong codes kill the tempToken (429).',
        tags: ['auth'],
        body: LoginTwoFaBody,
        response: { 200: envelope(FullUserWithToken), ...commonErrors },
      },
      preHandler: limit('login-2fa'),
    },
    async (req) =>
      ok(await security.completeTwoFaLogin(req.body.tempToken, req.body.code, requestMeta(req)), 'Logged in'),
  )

  app.post(
    '/v1/auth/2fa/email/code',
    {
      schema: {
        operationId: 'resendTwoFaLoginCode',
        summary: 'Email a new two-factor login code (#6)',
        description:
          'For an email two-factor login started with #4: a new code for the same tempToken. Answers the same way for any email; only an account in that situation gets mail. Earlier codes of the same request stay valid until their own 15 minutes pass (the last 3 codes at most), so a mail that arrives late still works; any one of them used ends the request, and wrong codes count across resends.',
        tags: ['auth'],
        body: TwoFaEmailCodeBody,
        response: { 200: envelope(EmptyObject), ...commonErrors },
      },
      preHandler: limit('login-2fa-code'),
    },
    async (req) => {
      await security.resendLoginCode(req.body.email)
      return ok({}, 'If a two-factor login is under way, a new code was sent')
    },
  )
}
