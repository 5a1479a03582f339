// HTTP for two-factor authentication: setup (#41–#43), codes for sensitive actions (#44) and the
// second login step (#5, #6).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Config } from '../../config.ts'
import { type AuthContext, caller, requestMeta } from '../../http/auth.ts'
import { authLimiter } from '../../http/rate-limit.ts'
import {
  bearer,
  EmptyObject,
  type ErrorCases,
  envelope,
  errorResponses,
  guardedErrors,
  noAuth,
  ok,
} from '../../http/schemas.ts'
import { FullUserWithToken } from './schemas.ts'
import type { AccountSecurityService } from './security.ts'
import {
  InitiateTwoFaBody,
  InitiateTwoFaData,
  LoginTwoFaBody,
  SensitiveCodeBody,
  TwoFaCodeBody,
  TwoFaEmailCodeBody,
} from './two-factor-schemas.ts'

export const twoFactorRoutes: FastifyPluginAsyncTypebox<{
  security: AccountSecurityService
  config: Config
}> = async (app, { security, config }) => {
  const tags = ['account']
  const guarded = { security: bearer }
  const RATE_LIMITED = 'too many requests from this IP address or for this account; see `Retry-After`'
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
        response: {
          202: envelope(
            InitiateTwoFaData,
            'Add the secret to your authenticator app and confirm with its code',
          ),
          ...guardedErrors({
            CONFLICT: {
              when: 'two-factor is already on',
              message: 'Two-factor authentication is already on',
            },
            ACCOUNT_HAS_NO_EMAIL: {
              when: '`email` for an account without an email address (a wallet account)',
              message: 'The account has no email address',
            },
            PASSKEY_UNLOCK_REQUIRED:
              'the account unlocks the console with a passkey and this session is not unlocked with it',
            RATE_LIMITED,
          }),
        },
      },
      onRequest: app.authenticate,
      // Each call mails a code (email) or makes a new secret: limited like the other code routes.
      preHandler: limit('2fa-initiate'),
    },
    async (req, reply) => {
      const data = await security.initiateTwoFa(caller(req), req.body.type)
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

  /** Turning two-factor on or off: a code of the method confirms it, answered with `message`. */
  const toggle = (o: {
    url: string
    operationId: string
    summary: string
    description: string
    message: string
    errors: ErrorCases
    limiter: string
    run: (auth: AuthContext, code: string) => Promise<void>
  }) =>
    app.post(
      o.url,
      {
        schema: {
          operationId: o.operationId,
          summary: o.summary,
          description: o.description,
          tags,
          ...guarded,
          body: TwoFaCodeBody,
          response: {
            200: envelope(EmptyObject, o.message),
            ...guardedErrors({ ...o.errors, RATE_LIMITED }),
          },
        },
        onRequest: app.authenticate,
        preHandler: limit(o.limiter),
      },
      async (req) => {
        await o.run(caller(req), req.body.code)
        return ok({}, o.message)
      },
    )

  toggle({
    url: '/v1/account/activate/2fa',
    operationId: 'activateTwoFa',
    summary: 'Turn two-factor on with the setup code (#42)',
    description:
      'The code mailed by #41 (email) or the current authenticator code (google_auth). Wrong codes count; the fifth kills the setup (429).',
    message: 'Two-factor authentication is on',
    errors: {
      INVALID_CODE: 'the code is wrong or expired, or no setup was started with #41',
      CONFLICT: { when: 'two-factor is already on', message: 'Two-factor authentication is already on' },
      TOO_MANY_ATTEMPTS: '5 wrong codes: the setup is dead; start again with #41',
      PASSKEY_UNLOCK_REQUIRED:
        'the account unlocks the console with a passkey and this session is not unlocked with it',
    },
    limiter: '2fa-activate',
    run: (auth, code) => security.activateTwoFa(auth, code),
  })

  toggle({
    url: '/v1/account/deactivate/2fa',
    operationId: 'deactivateTwoFa',
    summary: 'Turn two-factor off (#43)',
    description:
      'Needs a current code of the active method: the authenticator code (google_auth) or a code mailed by POST /v1/account/2fa/email (email). 409 when two-factor is off.',
    message: 'Two-factor authentication is off',
    errors: {
      INVALID_CODE: 'the code is wrong, used or expired, or (email) none was requested',
      TWO_FACTOR_NOT_ENABLED: { when: 'two-factor is off', message: 'Two-factor authentication is not on' },
      TOO_MANY_ATTEMPTS: '5 wrong codes: request a new one with POST /v1/account/2fa/email',
    },
    limiter: '2fa-deactivate',
    run: (auth, code) => security.deactivateTwoFa(auth.userId, code),
  })

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
        response: {
          200: envelope(EmptyObject, 'A security code was sent to your email'),
          ...guardedErrors({
            VALIDATION_ERROR: 'a field fails its schema, or `emailType` is not `two_fa`',
            INVALID_CREDENTIALS: {
              when: 'a `password` was sent and it is wrong',
              message: 'The password is wrong',
            },
            TWO_FACTOR_USES_APP: {
              when: 'two-factor uses an authenticator app (its codes are used instead)',
              message: 'Two-factor uses an authenticator app: use its current code instead',
            },
            ACCOUNT_HAS_NO_EMAIL: 'the account has no email address',
            RATE_LIMITED,
          }),
        },
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
        security: noAuth,
        body: LoginTwoFaBody,
        response: {
          200: envelope(FullUserWithToken, 'Logged in'),
          ...errorResponses({
            FORBIDDEN: { when: 'the account is suspended', message: 'This account is suspended' },
            INVALID_CODE: 'the code is wrong, used or expired',
            UNAUTHENTICATED: 'the temporary token is not a live `login_2fa` token, or the account is gone',
            TOO_MANY_ATTEMPTS: '5 wrong codes: the login is dead; log in again',
            RATE_LIMITED,
          }),
        },
      },
      preHandler: limit('login-2fa'),
    },
    async (req) =>
      ok(await security.login.complete(req.body.tempToken, req.body.code, requestMeta(req)), 'Logged in'),
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
        security: noAuth,
        body: TwoFaEmailCodeBody,
        response: {
          200: envelope(EmptyObject, 'If a two-factor login is under way, a new code was sent'),
          ...errorResponses({ RATE_LIMITED }),
        },
      },
      preHandler: limit('login-2fa-code'),
    },
    async (req) => {
      await security.login.resendCode(req.body.email)
      return ok({}, 'If a two-factor login is under way, a new code was sent')
    },
  )
}
