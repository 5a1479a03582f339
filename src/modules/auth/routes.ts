// HTTP for email sign-up, login and password reset (spec #1–#4, #7–#9).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { Config } from '../../config.ts'
import { requestMeta } from '../../http/auth.ts'
import { authLimiter } from '../../http/rate-limit.ts'
import { EmptyObject, envelope, errorResponses, noAuth, ok } from '../../http/schemas.ts'
import {
  CodeBody,
  EmailBody,
  LoginBody,
  LoginData,
  PasswordChangeBody,
  RegisterBody,
  RegisterData,
  TempTokenData,
  TwoFaChallengeData,
} from './schemas.ts'
import type { AuthService } from './service.ts'

export const authRoutes: FastifyPluginAsyncTypebox<{ auth: AuthService; config: Config }> = async (
  app,
  { auth, config },
) => {
  const emailOf = (req: { body: unknown }) => {
    const email = (req.body as { email?: unknown } | undefined)?.email
    return typeof email === 'string' ? email : undefined
  }
  const limit = (group: string) => authLimiter(app, config.rateLimit, group, emailOf)
  // #7 and its resend count together: one limiter (in-process counters live in the limiter).
  const resetLimit = limit('reset')
  const tags = ['auth']
  const security = noAuth
  const RATE_LIMITED = 'too many requests from this IP address or for this email; see `Retry-After`'
  const TEMP_TOKEN = 'the temporary token is malformed, expired, already used, or belongs to another step'

  app.post(
    '/v1/auth/create-account',
    {
      schema: {
        operationId: 'createAccount',
        summary: 'Register with email and password (#1)',
        description:
          'Creates an unverified account and emails a 6-digit code. The passwords must match (400 PASSWORD_MISMATCH) and be at least 8 characters with 3 of: lower, upper, digit, symbol (400 WEAK_PASSWORD). An optional `referralCode` (or `referral`, the public SDK’s name for it; both sent and different is 400) links the account to the referrer (any case); an unknown code is 400, a code used REFERRAL_LIMIT times already is 422. An optional `type` (`talent` or `business`) is the account type shown as `type` on the User forms (`recipient` when absent). The temporary token’s subject is the flow, never the account id.',
        tags,
        security,
        body: RegisterBody,
        response: {
          202: envelope(RegisterData, 'Account created; a verification code was sent to your email'),
          ...errorResponses({
            VALIDATION_ERROR: 'a field fails its schema, or the referral code is unknown',
            PASSWORD_MISMATCH: 'password and confirmPassword differ',
            WEAK_PASSWORD: 'under 8 characters, or fewer than 3 of lower case, upper case, digits, symbols',
            CONFLICT: {
              when: 'the email is already registered',
              message: 'This email is already registered',
            },
            REFERRAL_CODE_USED_UP: {
              when: 'the referral code was used the allowed number of times (REFERRAL_LIMIT)',
              message: 'This referral code has been used the allowed number of times',
            },
            RATE_LIMITED,
          }),
        },
      },
      preHandler: limit('register'),
    },
    async (req, reply) => {
      const data = await auth.register(req.body)
      return reply.code(202).send(ok(data, 'Account created; a verification code was sent to your email'))
    },
  )

  app.post(
    '/v1/auth/account/verify',
    {
      schema: {
        operationId: 'verifyAccount',
        summary: 'Verify the email with the 6-digit code (#2)',
        tags,
        security,
        body: CodeBody,
        response: {
          200: envelope(LoginData, 'Email verified'),
          ...errorResponses({
            FORBIDDEN: { when: 'the account is suspended', message: 'This account is suspended' },
            INVALID_CODE: 'the code is wrong, used or expired',
            UNAUTHENTICATED: TEMP_TOKEN,
            TOO_MANY_ATTEMPTS: '5 wrong codes: the request is dead; start again with /v1/auth/verify/resend',
            RATE_LIMITED,
          }),
        },
      },
      preHandler: limit('verify'),
    },
    async (req) =>
      ok(await auth.verifyEmail(req.body.token, req.body.tempToken, requestMeta(req)), 'Email verified'),
  )

  app.post(
    '/v1/auth/verify/resend',
    {
      schema: {
        operationId: 'resendVerification',
        summary: 'Send a new verification code (#3)',
        description:
          'Answers the same way whether or not the email has an account, with a temporary token of the same shape (its subject is a flow id, never the account); only a real, unverified account gets mail. The new token replaces the earlier ones. Earlier codes of the same request stay valid until their own 15 minutes pass (the last 3 codes at most), so a mail that arrives late still works; any one of them used ends the request, and wrong codes count across resends.',
        tags,
        security,
        body: EmailBody,
        response: {
          200: envelope(TempTokenData, 'If the email needs verification, a code was sent'),
          ...errorResponses({ RATE_LIMITED }),
        },
      },
      preHandler: limit('resend'),
    },
    async (req) =>
      ok(
        await auth.startEmailFlow(req.body.email, 'verify_email'),
        'If the email needs verification, a code was sent',
      ),
  )

  app.post(
    '/v1/auth/login',
    {
      schema: {
        operationId: 'login',
        summary: 'Log in with email and password (#4)',
        description:
          'Returns the permanent token. When two-factor is on, answers `twoFaRequired`, `twoFaType` and a tempToken for #5 instead (an email code is sent at once for type `email`). 403 EMAIL_NOT_VERIFIED before verification.',
        tags,
        security,
        body: LoginBody,
        response: {
          200: envelope(Type.Union([LoginData, TwoFaChallengeData]), 'Logged in'),
          ...errorResponses({
            FORBIDDEN: { when: 'the account is suspended', message: 'This account is suspended' },
            INVALID_CREDENTIALS: 'wrong email or password (an unknown email answers the same)',
            EMAIL_NOT_VERIFIED:
              'the password is right but the email is not verified yet; /v1/auth/verify/resend sends a code',
            RATE_LIMITED,
            UNAVAILABLE: 'two-factor login is on for the account but cannot be served right now',
          }),
        },
      },
      preHandler: limit('login'),
    },
    async (req) => {
      const result = await auth.login(req.body.email, req.body.password, requestMeta(req))
      return ok(result, 'twoFaRequired' in result ? 'Two-factor code required' : 'Logged in')
    },
  )

  app.post(
    '/v1/auth/password/reset',
    {
      schema: {
        operationId: 'resetPassword',
        summary: 'Start a password reset (#7)',
        description:
          'Answers the same way whether or not the email has an account, with a temporary token of the same shape (its subject is a flow id, never the account); only a real account gets mail. The new token replaces the earlier ones. Earlier codes of the same request stay valid until their own 15 minutes pass (the last 3 codes at most), so a mail that arrives late still works; any one of them used ends the request, and wrong codes count across resends.',
        tags,
        security,
        body: EmailBody,
        response: {
          200: envelope(TempTokenData, 'If the email has an account, a reset code was sent'),
          ...errorResponses({ RATE_LIMITED }),
        },
      },
      preHandler: resetLimit,
    },
    async (req) =>
      ok(
        await auth.startEmailFlow(req.body.email, 'reset_password'),
        'If the email has an account, a reset code was sent',
      ),
  )

  app.post(
    '/v1/auth/password/reset/resend',
    {
      schema: {
        operationId: 'resendResetPassword',
        summary: 'Send a new password-reset code (the SDK’s resendResetPassword)',
        description:
          'The same as #7, for a client that asks again: a new code and temporary token, the same answer whether or not the email has an account (only a real account gets mail), earlier codes of the request valid until their own 15 minutes pass, wrong codes counted across resends. Counted with #7 under one rate limit (per IP and per email), so resending never adds attempts.',
        tags,
        security,
        body: EmailBody,
        response: {
          200: envelope(TempTokenData, 'If the email has an account, a new reset code was sent'),
          ...errorResponses({ VALIDATION_ERROR: 'the email is missing or not an email', RATE_LIMITED }),
        },
      },
      preHandler: resetLimit,
    },
    async (req) =>
      ok(
        await auth.startEmailFlow(req.body.email, 'reset_password'),
        'If the email has an account, a new reset code was sent',
      ),
  )

  app.post(
    '/v1/auth/validate/password',
    {
      schema: {
        operationId: 'validateResetCode',
        summary: 'Check the reset code (#8)',
        tags,
        security,
        body: CodeBody,
        response: {
          200: envelope(Type.Null(), 'Code is valid'),
          ...errorResponses({
            INVALID_CODE: 'the code is wrong, used or expired',
            UNAUTHENTICATED: TEMP_TOKEN,
            TOO_MANY_ATTEMPTS: '5 wrong codes: the reset is dead; start again with /v1/auth/password/reset',
            RATE_LIMITED,
          }),
        },
      },
      preHandler: limit('reset-validate'),
    },
    async (req) => {
      await auth.validateResetCode(req.body.token, req.body.tempToken)
      return ok(null, 'Code is valid')
    },
  )

  app.post(
    '/v1/auth/password/change',
    {
      schema: {
        operationId: 'changePasswordWithCode',
        summary: 'Set a new password with the reset code (#9)',
        description:
          'Revokes every session of the account. As in the original service, the JSON envelope is declared as text/plain.',
        tags,
        security,
        body: PasswordChangeBody,
        response: {
          200: {
            description: 'the password was changed (a JSON envelope, declared as text/plain)',
            content: {
              'text/plain': {
                schema: envelope(EmptyObject, 'Password changed; log in with the new password'),
              },
            },
          },
          ...errorResponses({
            WEAK_PASSWORD: 'the new password is under 8 characters or uses fewer than 3 kinds of characters',
            INVALID_CODE: 'the code is wrong, used or expired',
            UNAUTHENTICATED: TEMP_TOKEN,
            TOO_MANY_ATTEMPTS: '5 wrong codes: the reset is dead; start again with /v1/auth/password/reset',
            RATE_LIMITED,
          }),
        },
      },
      preHandler: limit('reset-change'),
    },
    async (req, reply) => {
      await auth.changePasswordWithCode(
        req.body.token,
        req.body.tempToken,
        req.body.password,
        requestMeta(req),
      )
      return reply
        .code(200)
        .type('text/plain; charset=utf-8')
        .send(JSON.stringify(ok({}, 'Password changed; log in with the new password')))
    },
  )
}
