// HTTP for referrals, at the paths of the public SDK: validating a code before sign-up (public),
// and the referrer's own list, stats and invitations.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Config } from '../../config.ts'
import { caller } from '../../http/auth.ts'
import { authLimiter } from '../../http/rate-limit.ts'
import { bearer, envelope, errorResponses, guardedErrors, noAuth, ok } from '../../http/schemas.ts'
import {
  InviteBody,
  InviteResult,
  ReferralListQuery,
  ReferralStats,
  ReferredPage,
  ValidateReferral,
  ValidateReferralBody,
} from './schemas.ts'
import type { ReferralService } from './service.ts'

export const referralRoutes: FastifyPluginAsyncTypebox<{
  referrals: ReferralService
  config: Config
}> = async (app, { referrals, config }) => {
  const tags = ['referrals']

  app.post(
    '/v1/auth/referral/validate',
    {
      schema: {
        operationId: 'validateReferral',
        summary: 'Check a referral code before sign-up (the SDK’s auth.validateReferral)',
        description:
          'Public. Answers who the code belongs to and whether it can still be used (`valid`: fewer than REFERRAL_LIMIT accounts signed up with it). Codes match in any case. Limited per client IP like the other sign-up steps.',
        tags,
        security: noAuth,
        body: ValidateReferralBody,
        response: {
          200: envelope(ValidateReferral, 'Referral code'),
          ...errorResponses({
            VALIDATION_ERROR: 'the body fails its schema',
            NOT_FOUND: { when: 'no live account has this code', message: 'referral code not found' },
            RATE_LIMITED: 'too many requests from this IP address; see `Retry-After`',
          }),
        },
      },
      preHandler: authLimiter(app, config.rateLimit, 'referral-validate'),
    },
    async (req) => ok(await referrals.validate(req.body.token), 'Referral code'),
  )

  app.get(
    '/v1/referrals',
    {
      schema: {
        operationId: 'listReferrals',
        summary: 'The accounts that signed up with the caller’s referral code, newest first',
        description: 'Deleted accounts are left out. Query: `page`, `limit` (12, max 100).',
        tags,
        security: bearer,
        querystring: ReferralListQuery,
        response: {
          200: envelope(ReferredPage, 'Referrals'),
          ...guardedErrors({ VALIDATION_ERROR: 'a query value is out of range or unknown' }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await referrals.list(caller(req).userId, req.query), 'Referrals'),
  )

  app.get(
    '/v1/referrals/stats',
    {
      schema: {
        operationId: 'referralStats',
        summary: 'The caller’s referral code and how it did',
        tags,
        security: bearer,
        response: { 200: envelope(ReferralStats, 'Referral stats'), ...guardedErrors() },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await referrals.stats(caller(req).userId), 'Referral stats'),
  )

  app.post(
    '/v1/referrals/invite',
    {
      schema: {
        operationId: 'sendReferralInvites',
        summary: 'Invite people by e-mail with the caller’s referral code',
        description:
          'Mails each address (1 to 10, case-insensitive, repeats dropped) an invitation with the caller’s code. An address that has an account, or that the caller invited in the last 24 hours, gets no mail, and the answer is the same either way (it would tell who has an account). At most REFERRAL_INVITES_PER_DAY addresses per 24 hours (422 beyond).',
        tags,
        security: bearer,
        body: InviteBody,
        response: {
          200: envelope(InviteResult, 'Invitations sent'),
          ...guardedErrors({
            VALIDATION_ERROR: 'the body fails its schema, or names the caller’s own address',
            REFERRAL_INVITES_EXHAUSTED: {
              when: 'more addresses than REFERRAL_INVITES_PER_DAY in 24 hours',
              message: 'At most 20 addresses can be invited in 24 hours; 3 left',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await referrals.invite(caller(req).userId, req.body.emails), 'Invitations sent'),
  )
}
