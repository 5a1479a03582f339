// Operators' passkeys: unlocking the session with one (options, then the browser's answer), adding
// one (options, then the answer), listing and removing them; and an admin clearing another
// account's second factor. The unlock and the adding need an operator's token but no elevation
// (they are how a session gets one, or a first passkey with the authenticator code); the rest needs
// an unlocked session.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../../http/auth.ts'
import { EmptyObject, envelope, IdParams, ok } from '../../../http/schemas.ts'
import type { AdminAccess } from '../access.ts'
import type { AdminPasskeys } from '../passkeys.ts'
import { AdminSession, ReasonBody } from '../schemas.ts'
import {
  AuthenticatePasskeyBody,
  Passkey,
  PasskeyAuthenticationOptions,
  PasskeyList,
  PasskeyParams,
  PasskeyRegistrationOptions,
  RegisterPasskeyBody,
  RegistrationOptionsBody,
  SecondFactorReset,
  SecondFactorResetBody,
} from '../schemas-passkeys.ts'
import type { AdminSecondFactors } from '../second-factor.ts'
import { actorOf, adminErrors, guardAdmin, guardElevated, security, tags } from './common.ts'

const NOT_ADMIN = { when: 'the caller is not an operator', message: 'Only an admin may do this' }
const CHALLENGE = 'the answer signs no open challenge of this session and ceremony (unknown, used, expired)'

/** Routes of the session itself: every operator, no elevation needed. */
export const adminPasskeySessionRoutes: FastifyPluginAsyncTypebox<{
  access: AdminAccess
  passkeys: AdminPasskeys
}> = async (app, { access, passkeys }) => {
  guardAdmin(app, access)

  app.post(
    '/v1/admin/session/passkey/options',
    {
      schema: {
        operationId: 'adminPasskeyUnlockOptions',
        summary: 'Options for unlocking this session with a passkey (navigator.credentials.get)',
        description:
          'A challenge for this session (single use, 5 minutes) and the operator’s passkeys as `allowCredentials`; user verification is required.',
        tags,
        security,
        response: {
          200: envelope(PasskeyAuthenticationOptions),
          ...adminErrors({
            FORBIDDEN: NOT_ADMIN,
            PASSKEY_NOT_REGISTERED: 'the operator has no passkey',
          }),
        },
      },
    },
    async (req) => ok(await passkeys.authenticationOptions(caller(req))),
  )

  app.post(
    '/v1/admin/session/passkey',
    {
      schema: {
        operationId: 'elevateAdminSessionPasskey',
        summary: 'Step up with a passkey: the browser’s answer to the options elevates this session',
        description:
          'The answer must sign the open challenge of this session, with one of the caller’s own passkeys, on WEBAUTHN_ORIGIN and WEBAUTHN_RP_ID, with user verification, and a signature counter that moved forward. The challenge is used up by the first answer, right or wrong. Audited as `admin.session.elevate` (second factor `passkey`).',
        tags,
        security,
        body: AuthenticatePasskeyBody,
        response: {
          200: envelope(AdminSession, 'Admin session elevated'),
          ...adminErrors({
            FORBIDDEN: NOT_ADMIN,
            PASSKEY_CHALLENGE_INVALID: CHALLENGE,
            PASSKEY_INVALID: 'not a passkey of this account, or the answer does not verify',
          }),
        },
      },
    },
    async (req) =>
      ok(await passkeys.authenticate(actorOf(req), req.body.credential as never), 'Admin session elevated'),
  )

  app.post(
    '/v1/admin/passkeys/options',
    {
      schema: {
        operationId: 'adminPasskeyRegistrationOptions',
        summary: 'Options for adding a passkey (navigator.credentials.create)',
        description:
          'From an unlocked session; an operator who has no passkey yet may instead send the authenticator app’s current `code` (used up). The options exclude the operator’s passkeys; the challenge is single use, 5 minutes, for this session.',
        tags,
        security,
        body: RegistrationOptionsBody,
        response: {
          200: envelope(PasskeyRegistrationOptions),
          ...adminErrors({
            FORBIDDEN: {
              when: 'not an operator; or the session is not unlocked and no code (or a passkey exists already)',
              message:
                'A passkey is added from an unlocked admin session: unlock first (POST /v1/admin/session)',
            },
            INVALID_CODE: 'the authenticator code is wrong or used',
            TOO_MANY_ATTEMPTS: '5 wrong codes',
          }),
        },
      },
    },
    async (req) => ok(await passkeys.registrationOptions(actorOf(req), req.body.code)),
  )

  app.post(
    '/v1/admin/passkeys',
    {
      schema: {
        operationId: 'adminRegisterPasskey',
        summary: 'Add a passkey: the browser’s answer to the registration options',
        description:
          'Verified against the open registration challenge of this session, WEBAUTHN_ORIGIN and WEBAUTHN_RP_ID, with user verification. Audited as `admin.passkey.register`.',
        tags,
        security,
        body: RegisterPasskeyBody,
        response: {
          200: envelope(Passkey, 'Passkey added'),
          ...adminErrors({
            FORBIDDEN: NOT_ADMIN,
            PASSKEY_CHALLENGE_INVALID: CHALLENGE,
            PASSKEY_INVALID: 'the answer does not verify',
            CONFLICT: 'this passkey is registered already',
          }),
        },
      },
    },
    async (req) =>
      ok(
        await passkeys.register(actorOf(req), req.body.name.trim(), req.body.credential as never),
        'Passkey added',
      ),
  )
}

/** Routes that need an unlocked session. */
export const adminPasskeyRoutes: FastifyPluginAsyncTypebox<{
  access: AdminAccess
  passkeys: AdminPasskeys
  secondFactors: AdminSecondFactors
}> = async (app, { access, passkeys, secondFactors }) => {
  guardElevated(app, access)

  app.get(
    '/v1/admin/passkeys',
    {
      schema: {
        operationId: 'adminPasskeys',
        summary: 'The caller’s own passkeys',
        tags,
        security,
        response: { 200: envelope(PasskeyList), ...adminErrors() },
      },
    },
    async (req) => ok({ data: await passkeys.list(caller(req)) }),
  )

  app.post(
    '/v1/admin/passkeys/:id/remove',
    {
      schema: {
        operationId: 'adminRemovePasskey',
        summary: 'Remove one of the caller’s own passkeys',
        description: 'Audited as `admin.passkey.remove`. Another operator’s passkey is 404.',
        tags,
        security,
        params: PasskeyParams,
        body: ReasonBody,
        response: {
          200: envelope(EmptyObject, 'Passkey removed'),
          ...adminErrors({ NOT_FOUND: 'the caller has no passkey with this id' }),
        },
      },
    },
    async (req) => {
      await passkeys.remove(actorOf(req), req.params.id, req.body.reason)
      return ok({}, 'Passkey removed')
    },
  )

  app.post(
    '/v1/admin/users/:id/second-factor/reset',
    {
      schema: {
        operationId: 'adminResetSecondFactor',
        summary: 'Clear an account’s second factor: its authenticator app, its passkeys, or both (admin)',
        description:
          'For a lost phone or a passkey to rotate. Never one’s own (409). Every session of the account is revoked in the same transaction, its admin step-ups with them: it signs in again and sets up a new factor. Audited as `user.second-factor.reset` with what was cleared.',
        tags,
        security,
        params: IdParams,
        body: SecondFactorResetBody,
        response: {
          200: envelope(SecondFactorReset, 'Second factor cleared'),
          ...adminErrors({
            NOT_FOUND: 'no live account has this id',
            OWN_ACCOUNT_REFUSED: 'the account is the caller’s',
            NO_SECOND_FACTOR: 'the account has none of the factors asked for',
          }),
        },
      },
    },
    async (req) =>
      ok(
        await secondFactors.reset(
          actorOf(req),
          req.params.id,
          req.body.factors ?? ['totp', 'passkeys'],
          req.body.reason,
        ),
        'Second factor cleared',
      ),
  )
}
