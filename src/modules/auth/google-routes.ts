// HTTP for Google sign-in (the public SDK's googleOAuthGenerateState / googleOAuthValidateState).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { Config } from '../../config.ts'
import { requestMeta } from '../../http/auth.ts'
import { authLimiter } from '../../http/rate-limit.ts'
import { envelope, errorResponses, noAuth, ok } from '../../http/schemas.ts'
import {
  GoogleSessionData,
  GoogleStateData,
  GoogleStateQuery,
  GoogleValidateQuery,
} from './google-schemas.ts'
import type { GoogleService } from './google-service.ts'
import { TwoFaChallengeData } from './schemas.ts'

export const googleRoutes: FastifyPluginAsyncTypebox<{ google: GoogleService; config: Config }> = async (
  app,
  { google, config },
) => {
  const tags = ['auth']
  const security = noAuth
  const RATE_LIMITED = 'too many requests from this IP address (or for this state); see `Retry-After`'
  const UNAVAILABLE = {
    when: 'Google sign-in is not configured on the server (the message names the variables), or the provider cannot be reached',
    message:
      'Google sign-in is not configured on this server: set GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET and GOOGLE_REDIRECT_URL (and OIDC_ISSUER_URL for a provider other than Google)',
  }
  const stateOf = (req: { query: unknown }) => {
    const state = (req.query as { state?: unknown } | undefined)?.state
    return typeof state === 'string' ? `state:${state}` : undefined
  }

  app.get(
    '/v1/auth/google/oauth/generate-state',
    {
      schema: {
        operationId: 'googleOAuthGenerateState',
        summary: 'Start Google sign-in',
        description:
          'Answers the provider’s authorization URL and a new state. The state, a nonce and the PKCE verifier are kept on the server for 10 minutes and work once. Send the browser to `googleAuthUrl`; the provider sends it back to GOOGLE_REDIRECT_URL with `code` and `state`, which go to POST /v1/auth/google/oauth/validate-state. 503 UNAVAILABLE when Google sign-in is not configured.',
        tags,
        security,
        querystring: GoogleStateQuery,
        response: {
          200: envelope(GoogleStateData, 'Send the browser to googleAuthUrl'),
          ...errorResponses({ RATE_LIMITED, UNAVAILABLE }),
        },
      },
      // Each call writes a state row: limited per IP like the other auth writes.
      preHandler: authLimiter(app, config.rateLimit, 'google-state'),
    },
    async () => ok(await google.generateState(), 'Send the browser to googleAuthUrl'),
  )

  app.post(
    '/v1/auth/google/oauth/validate-state',
    {
      schema: {
        operationId: 'googleOAuthValidateState',
        summary: 'Finish Google sign-in with the redirect’s state and code',
        description:
          'Uses up the state (unknown, expired or used: 400 OAUTH_STATE_INVALID), redeems the code at the provider with the state’s PKCE verifier (refused: 400 OAUTH_CODE_REJECTED) and verifies the ID token against the issuer’s keys, issuer, client id and nonce (401 OAUTH_ID_TOKEN_INVALID). An unverified email is refused (403 OAUTH_EMAIL_NOT_VERIFIED). The identity signs in to the account it was linked to, else to the account with the same verified email (which it is then linked to; an account that has not verified that email is 409 OAUTH_ACCOUNT_NOT_VERIFIED), else a new verified account is created (`type: sign_up`). Answers the permanent token, or, with two-factor on, the same challenge as login.',
        tags,
        security,
        querystring: GoogleValidateQuery,
        response: {
          200: envelope(Type.Union([GoogleSessionData, TwoFaChallengeData]), 'Signed in with Google'),
          ...errorResponses({
            OAUTH_STATE_INVALID: 'the state is unknown (forged), expired (10 minutes) or already used',
            OAUTH_CODE_REJECTED:
              'the provider refused the code: wrong, expired, already redeemed, or issued for another state',
            OAUTH_ID_TOKEN_INVALID:
              'the ID token failed verification: signature, issuer, audience (another client), nonce or expiry',
            OAUTH_EMAIL_NOT_VERIFIED: 'the provider says the email is not verified, or gave none',
            FORBIDDEN: { when: 'the account is suspended', message: 'This account is suspended' },
            OAUTH_ACCOUNT_NOT_VERIFIED:
              'an account holds the email but has not verified it, so it is not linked',
            RATE_LIMITED,
            UNAVAILABLE,
          }),
        },
      },
      // Per IP and per state.
      preHandler: authLimiter(app, config.rateLimit, 'google-validate', stateOf),
    },
    async (req) => {
      const result = await google.validate(req.query, requestMeta(req))
      return ok(result.data, result.kind === 'session' ? 'Signed in with Google' : 'Two-factor code required')
    },
  )
}
