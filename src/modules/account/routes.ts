// HTTP for the account surface: profile, people search, password, logout and deletion (spec #36–#40,
// #45, #46). Two-factor routes are in two-factor-routes.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Config } from '../../config.ts'
import { caller, requestMeta } from '../../http/auth.ts'
import { errors } from '../../http/errors.ts'
import { authLimiter } from '../../http/rate-limit.ts'
import { bearer, EmptyObject, envelope, guardedErrors, IdParams, ok } from '../../http/schemas.ts'
import { OnboardBody } from './onboard-schemas.ts'
import {
  ChangePasswordBody,
  DeleteAccountBody,
  FullUser,
  PublicUser,
  SearchData,
  SearchQuery,
  UpdateBody,
} from './schemas.ts'
import type { AccountSecurityService } from './security.ts'
import type { AccountService } from './service.ts'

export const accountRoutes: FastifyPluginAsyncTypebox<{
  accounts: AccountService
  security: AccountSecurityService
  config: Config
}> = async (app, { accounts, security, config }) => {
  const tags = ['account']
  const guarded = { security: bearer }
  const PASSWORD_LOCK =
    '5 wrong passwords of the account within 15 minutes, counted across every action the password confirms; see `Retry-After`'
  const limit = (group: string) => authLimiter(app, config.rateLimit, group)

  app.get(
    '/v1/account',
    {
      schema: {
        operationId: 'getAccount',
        summary: 'The caller’s full profile (#36)',
        tags,
        ...guarded,
        response: {
          200: envelope(FullUser, 'Account'),
          ...guardedErrors({ NOT_FOUND: 'the account was deleted since the token was issued' }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await accounts.getFullUser(caller(req).userId), 'Account'),
  )

  app.patch(
    '/v1/account/update',
    {
      schema: {
        operationId: 'updateAccount',
        summary: 'Update the caller’s profile (#37)',
        description:
          'Only the fields sent change; nested objects are merged sub-field by sub-field and an empty string clears a text field. `profile.talent.tags` replaces the tag set (tags are created with their colour and categories as needed). Phone numbers must be international (+ and country code) and are stored as E.164; social links must be http(s) URLs on github.com, twitter.com/x.com and linkedin.com (website: any http(s) URL). The email cannot be changed here (400). Profile completeness is recomputed. Also accepted (the public SDK’s fields): `isPrivate` (true hides the profile from other users’ people search and shows them only the identity fields in #39), `profileImage` / `bgImage` (the id of one of your public uploads; null or an empty string removes it), `meta` (keys merged into meta, a key sent as null removed, `pointScore` the service’s; at most 16 KiB as JSON and 5 levels deep), and `availability` `busy` or `working` beside `available`, `limited`, `unavailable`.',
        tags,
        ...guarded,
        body: UpdateBody,
        response: {
          200: envelope(FullUser, 'Profile updated'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'a field fails its schema, `email` is sent, a phone is not international, a social link is not on its platform, an image is not one of your public uploads, or `meta` is too big or too deep',
            NOT_FOUND: 'the account was deleted since the token was issued',
          }),
        },
      },
      onRequest: app.authenticate,
      // Before schema validation, so a client trying to change the email learns why it is refused.
      preValidation: async (req) => {
        const body = req.body as Record<string, unknown> | null | undefined
        if (body && typeof body === 'object' && 'email' in body)
          throw errors.field('/email', 'The email cannot be changed through a profile update')
      },
    },
    async (req) => ok(await accounts.updateProfile(caller(req).userId, req.body), 'Profile updated'),
  )

  app.post(
    '/v1/account/onboard',
    {
      schema: {
        operationId: 'onboardAccount',
        summary: 'Onboarding: skill category, profile image and account type (the SDK’s onboardEndpoint)',
        description:
          'Sets `profile.talent.tagsCategory` (one of the seeded skill categories, by name or key in any case), `profileImage` (one of your public uploads) and `type` (`talent` or `business`) in one profile update, and answers the full profile. May be sent again to change them.',
        tags,
        ...guarded,
        body: OnboardBody,
        response: {
          200: envelope(FullUser, 'Onboarding saved'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'a field fails its schema, an unknown skill category or type, or an image that is not one of your public uploads',
            NOT_FOUND: 'the account was deleted since the token was issued',
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await accounts.onboard(caller(req).userId, req.body), 'Onboarding saved'),
  )

  app.put(
    '/v1/account/password/change',
    {
      schema: {
        operationId: 'changePassword',
        summary: 'Change the password (#38)',
        description:
          'The old password must be right (401 INVALID_CREDENTIALS; after 5 wrong passwords of the account within 15 minutes, counted with every action confirmed by the password, 429 RATE_LIMITED); the new one must meet the policy (400 WEAK_PASSWORD) and differ from the old one (400). Every other session is revoked; the caller’s token stays valid.',
        tags,
        ...guarded,
        body: ChangePasswordBody,
        response: {
          200: envelope(EmptyObject, 'Password changed'),
          ...guardedErrors({
            VALIDATION_ERROR: 'a field fails its schema, or the new password equals the old one',
            WEAK_PASSWORD: 'the new password is under 8 characters or uses fewer than 3 kinds of characters',
            INVALID_CREDENTIALS: {
              when: 'the old password is wrong',
              message: 'The current password is wrong',
            },
            RATE_LIMITED: PASSWORD_LOCK,
          }),
        },
      },
      onRequest: app.authenticate,
      preHandler: limit('password-change'),
    },
    async (req) => {
      const { userId, sessionId } = caller(req)
      await security.changePassword(
        userId,
        sessionId,
        req.body.oldPassword,
        req.body.newPassword,
        requestMeta(req),
      )
      return ok({}, 'Password changed')
    },
  )

  app.get(
    '/v1/account/user/:id',
    {
      schema: {
        operationId: 'getUser',
        summary: 'Another user’s public profile (#39)',
        description:
          'The public form only: no email, contact details or bio. Unknown, deleted and unverified accounts are 404. A private profile (`isPrivate`) shows other users only who it is: its talent (availability, tags) and achievements are empty; its owner sees them.',
        tags,
        ...guarded,
        params: IdParams,
        response: {
          200: envelope(PublicUser, 'User'),
          ...guardedErrors({
            NOT_FOUND: { when: 'no such account, or one deleted or not verified', message: 'user not found' },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await accounts.getPublicUser(caller(req).userId, req.params.id), 'User'),
  )

  app.get(
    '/v1/account/user',
    {
      schema: {
        operationId: 'searchUsers',
        summary: 'Search people (#40)',
        description:
          'Live, verified accounts, newest first. Filters combine with AND: `role` (exact), `profileCompletenessMin`/`Max` (inclusive, 0–100), `tags` (comma-separated; any of them, matched by tag key, case-insensitive), `owner=true` (accounts that signed up with the caller’s referral code), `search` (every word must match the start of a word in the name, userName, title, about or tags; case-insensitive). `page` from 1, `limit` 1–100 (default 12); `position` is the 0-based offset of the first item. Private profiles are listed to no one but their owner. Unknown query parameters are refused.',
        tags,
        ...guarded,
        querystring: SearchQuery,
        response: {
          200: envelope(SearchData, 'Users'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'an unknown or malformed query parameter, or profileCompletenessMin above profileCompletenessMax',
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await accounts.search(caller(req).userId, req.query), 'Users'),
  )

  app.post(
    '/v1/account/logout',
    {
      schema: {
        operationId: 'logout',
        summary: 'Log out (#45)',
        description: 'Revokes the presented token only; other sessions stay valid.',
        tags,
        ...guarded,
        response: { 200: envelope(EmptyObject, 'Logged out'), ...guardedErrors() },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      await security.logout(caller(req).userId, caller(req).sessionId)
      return ok({}, 'Logged out')
    },
  )

  app.post(
    '/v1/account/delete-account',
    {
      schema: {
        operationId: 'deleteAccount',
        summary: 'Delete the account (#46)',
        description:
          'Needs the password (401 INVALID_CREDENTIALS when wrong; 429 RATE_LIMITED after 5 wrong passwords of the account within 15 minutes). Revokes every session and removes the personal data (names, email, profile, socials, tags, web3 address, two-factor); financial records are kept. The email can be registered again.',
        tags,
        ...guarded,
        body: DeleteAccountBody,
        response: {
          200: envelope(EmptyObject, 'Account deleted'),
          ...guardedErrors({
            INVALID_CREDENTIALS: { when: 'the password is wrong', message: 'The password is wrong' },
            RATE_LIMITED: PASSWORD_LOCK,
          }),
        },
      },
      onRequest: app.authenticate,
      preHandler: limit('delete-account'),
    },
    async (req) => {
      await security.deleteAccount(caller(req).userId, req.body.password, requestMeta(req))
      return ok({}, 'Account deleted')
    },
  )
}
