// The OpenID Connect client side of Google sign-in (openid-client): the issuer's discovery
// document fetched on first use and kept, the authorization URL with state, nonce and a PKCE
// challenge, and the code exchange whose ID token is checked against the issuer's keys, the
// client id (audience), the issuer and the nonce. Provider failures become named API errors.
import * as oidc from 'openid-client'
import type { Logger } from 'pino'
import type { GoogleSignInConfig } from '../../config-env.ts'
import { isLoopbackHttp } from '../../config-env.ts'
import { type AppError, errors } from '../../http/errors.ts'

/** What the service needs from the provider: an authorization URL, and a code redeemed for claims. */
export interface OidcProviderClient {
  authorizationUrl(p: { state: string; nonce: string; codeChallenge: string }): Promise<string>
  redeem(p: {
    code: string
    state: string
    iss?: string
    codeVerifier: string
    nonce: string
  }): Promise<OidcClaims>
}

/** The claims of a verified ID token that sign-in uses. */
export interface OidcClaims {
  issuer: string
  subject: string
  email: string | undefined
  emailVerified: boolean
  givenName: string | undefined
  familyName: string | undefined
  name: string | undefined
  zoneinfo: string | undefined
}

const SCOPE = 'openid email profile'
/** seconds each request to the provider may take */
const TIMEOUT_S = 10

export function openIdClient(cfg: GoogleSignInConfig, log: Logger): OidcProviderClient {
  let discovered: Promise<oidc.Configuration> | undefined

  const configuration = async (): Promise<oidc.Configuration> => {
    discovered ??= oidc
      .discovery(new URL(cfg.issuerUrl), cfg.clientId, undefined, oidc.ClientSecretPost(cfg.clientSecret), {
        timeout: TIMEOUT_S,
        // http is accepted for a provider on this machine only (config refuses it elsewhere and in
        // production); every ID token's signature is checked against the issuer's published keys.
        execute: [
          ...(isLoopbackHttp(cfg.issuerUrl) ? [oidc.allowInsecureRequests] : []),
          oidc.enableNonRepudiationChecks,
        ],
      })
      .then((c) => {
        c.timeout = TIMEOUT_S
        return c
      })
    try {
      return await discovered
    } catch (err) {
      // Not kept: the next request tries the provider again.
      discovered = undefined
      log.warn({ err, issuer: cfg.issuerUrl }, 'OpenID provider discovery failed')
      throw errors.unavailable('The sign-in provider cannot be reached right now; try again shortly')
    }
  }

  return {
    async authorizationUrl({ state, nonce, codeChallenge }) {
      const c = await configuration()
      return oidc
        .buildAuthorizationUrl(c, {
          redirect_uri: cfg.redirectUrl,
          response_type: 'code',
          scope: SCOPE,
          state,
          nonce,
          code_challenge: codeChallenge,
          code_challenge_method: 'S256',
        })
        .toString()
    },

    async redeem({ code, state, iss, codeVerifier, nonce }) {
      const c = await configuration()
      const callback = new URL(cfg.redirectUrl)
      callback.search = ''
      callback.searchParams.set('code', code)
      callback.searchParams.set('state', state)
      // The SDK passes only state and code. With one configured issuer there is no mix-up to guard
      // against, so a missing `iss` (RFC 9207) is the configured issuer; a given one must match it.
      const issuer = c.serverMetadata().issuer
      if (iss !== undefined && iss !== issuer)
        throw errors.named('OAUTH_CODE_REJECTED', 'The redirect names another issuer than this server’s', {
          iss,
        })
      callback.searchParams.set('iss', issuer)
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>
      try {
        tokens = await oidc.authorizationCodeGrant(c, callback, {
          pkceCodeVerifier: codeVerifier,
          expectedState: state,
          expectedNonce: nonce,
          idTokenExpected: true,
        })
      } catch (err) {
        throw refusal(err, log)
      }
      const claims = tokens.claims()
      if (!claims) throw idTokenInvalid('The sign-in provider returned no ID token')
      let email = str(claims.email)
      let verified: unknown = claims.email_verified
      let profile: Record<string, unknown> = claims
      // A provider that keeps the email out of the ID token gives it at the userinfo endpoint.
      if (email === undefined) {
        try {
          profile = await oidc.fetchUserInfo(c, tokens.access_token, claims.sub)
        } catch (err) {
          throw refusal(err, log)
        }
        email = str(profile.email)
        verified = profile.email_verified
      }
      return {
        issuer: claims.iss,
        subject: claims.sub,
        email: email?.toLowerCase(),
        emailVerified: verified === true || verified === 'true',
        givenName: str(profile.given_name),
        familyName: str(profile.family_name),
        name: str(profile.name),
        zoneinfo: str(profile.zoneinfo),
      }
    },
  }
}

const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined

const ID_TOKEN_CHECKS = [
  'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
  'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED',
  'OAUTH_INVALID_RESPONSE',
  'OAUTH_KEY_SELECTION_FAILED',
]

const idTokenInvalid = (message: string) => errors.named('OAUTH_ID_TOKEN_INVALID', message)

/** Maps a failed exchange to the API's answer: the caller's fault is a 4xx, the provider's a 503. */
function refusal(err: unknown, log: Logger): AppError {
  if (err instanceof oidc.ResponseBodyError) {
    // invalid_grant: the code is unknown, used, expired, issued to another client or redirect URI,
    // or the PKCE verifier does not match (the code belongs to another state).
    if (err.error === 'invalid_grant' || err.error === 'invalid_request')
      return errors.named(
        'OAUTH_CODE_REJECTED',
        'The sign-in provider refused the code: it is wrong, expired, already used or belongs to another sign-in; start again',
        { providerError: err.error },
      )
    log.error({ err, providerError: err.error, status: err.status }, 'OpenID provider refused the client')
    return errors.unavailable('Google sign-in is misconfigured on the server; try again later')
  }
  if (err instanceof oidc.AuthorizationResponseError)
    return errors.named('OAUTH_CODE_REJECTED', `The sign-in provider reported an error: ${err.error}`, {
      providerError: err.error,
    })
  // Checks of the token response and its ID token (signature against the issuer's keys, issuer,
  // audience, nonce, expiry): the token presented is not one for this sign-in.
  if (err instanceof oidc.ClientError && ID_TOKEN_CHECKS.includes(err.code ?? '')) {
    log.warn({ err }, 'ID token refused')
    return idTokenInvalid(
      'The ID token failed verification (signature, issuer, audience, nonce or expiry); start again',
    )
  }
  log.warn({ err }, 'OpenID provider request failed')
  return errors.unavailable('The sign-in provider cannot be reached right now; try again shortly')
}
