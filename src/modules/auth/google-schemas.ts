// The Google sign-in contract (the public SDK's googleOAuthGenerateState and googleOAuthValidateState).
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'

const STATE = 'Vq3Xy1n0bN2uQJb9y0sGm6m0dbX8pL3hzQm1wDq3kZk'

export const GoogleStateData = Type.Object(
  {
    googleAuthUrl: Type.String({
      description:
        'the provider’s authorization URL to send the browser to: client id, redirect URI, `openid email profile`, the state, a nonce and an S256 PKCE challenge',
    }),
    state: Type.String({
      description:
        'the single-use state of this sign-in (10 minutes); it comes back on the redirect with `code`',
    }),
  },
  {
    examples: [
      {
        googleAuthUrl: `https://accounts.google.com/o/oauth2/v2/auth?client_id=1234-abc.apps.googleusercontent.com&redirect_uri=https%3A%2F%2Fapp.example.com%2Fauth%2Fgoogle&response_type=code&scope=openid+email+profile&state=${STATE}&nonce=kTz0n3w9fJ2yq7XvB5aLr8sD1eGh4uPmQo6cWiN0bYc&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256`,
        state: STATE,
      },
    ],
  },
)

/** generate-state takes no parameters. */
export const GoogleStateQuery = Type.Object({}, { additionalProperties: false })

export const GoogleValidateQuery = Type.Object(
  {
    state: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'the `state` of the redirect (as generate-state gave it)',
    }),
    code: Type.String({ minLength: 1, maxLength: 4096, description: 'the `code` of the redirect' }),
    iss: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description:
          'the `iss` of the redirect (RFC 9207), when the provider sends one; it must be the configured issuer',
      }),
    ),
  },
  { additionalProperties: false },
)

export const GoogleSessionData = Type.Object(
  {
    token: Type.String({ description: 'the permanent token: send it as `Authorization: Bearer <token>`' }),
    token_type: Type.Literal('jwt'),
    expiresIn: Type.Integer({ description: 'expiry, Unix milliseconds (ten years ahead)' }),
    isVerified: Type.Literal(true, { description: 'the email is verified (the provider verified it)' }),
    timeZone: Type.Optional(
      Type.String({
        description: 'the provider’s `zoneinfo` claim, when it gives one (e.g. `Europe/Paris`)',
      }),
    ),
    type: Type.Union([Type.Literal('sign_in'), Type.Literal('sign_up')], {
      description: '`sign_up` when this sign-in created the account, `sign_in` otherwise',
    }),
  },
  {
    $id: 'GoogleSession',
    examples: [
      {
        token: EX.jwt,
        token_type: 'jwt',
        expiresIn: EX.permanentExpiresIn,
        isVerified: true,
        type: 'sign_up',
      },
    ],
  },
)
