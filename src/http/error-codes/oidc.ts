// Codes of sign-in with an OpenID provider (Google sign-in).
import { code } from './define.ts'

export const OIDC_CODES = {
  OAUTH_STATE_INVALID: code(
    400,
    'The sign-in state is unknown (never issued here), expired (10 minutes) or already used.',
    'Start the sign-in again with a new state (GET /v1/auth/google/oauth/generate-state).',
  ),
  OAUTH_CODE_REJECTED: code(
    400,
    'The provider refused the authorization code: wrong, expired, already redeemed, or issued for another state.',
    'Start the sign-in again; a code works once, with the state it was issued for.',
  ),
  OAUTH_ID_TOKEN_INVALID: code(
    401,
    'The ID token failed verification: its signature against the issuer’s keys, the issuer, the audience (this client), the nonce or its expiry.',
    'Start the sign-in again; if it persists, the server’s client id or issuer is misconfigured.',
  ),
  OAUTH_EMAIL_NOT_VERIFIED: code(
    403,
    'The provider says the account’s email is not verified, or gave no email.',
    'Verify the email with the provider (Google) first, then sign in again.',
  ),
  OAUTH_ACCOUNT_NOT_VERIFIED: code(
    409,
    'An account holds this email but has not verified it, so the provider identity is not linked to it.',
    'Verify the email of that account (POST /v1/auth/account/verify), then sign in with the provider again.',
  ),
} as const
