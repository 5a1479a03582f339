// The email sign-up and login contract (spec #1–#9).
import { Type } from 'typebox'
import { EX, exampleTempToken } from '../../http/examples.ts'
import { Code6, Email, Jwt, Password, Str, TokenObject } from '../../http/schemas.ts'

const Name = Str(100, { minLength: 1, pattern: '\\S' })

export const RegisterBody = Type.Object(
  {
    firstName: Name,
    lastName: Name,
    email: Email,
    password: Password,
    confirmPassword: Password,
    referralCode: Type.Optional(Str(32, { minLength: 1, description: 'the referrer’s referral code' })),
    referral: Type.Optional(
      Str(32, {
        minLength: 1,
        description: 'the same as `referralCode` (the SDK’s name); when both are sent they must be equal',
      }),
    ),
    type: Type.Optional(
      Type.Union([Type.Literal('talent'), Type.Literal('business')], {
        description: 'the account type, shown as `type` on the User forms (default `recipient`)',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: EX.email,
        password: EX.password,
        confirmPassword: EX.password,
      },
    ],
  },
)

export const RegisterData = Type.Object(
  { email: Type.String({ description: 'the registered address, lower case' }), tempToken: TokenObject },
  { examples: [{ email: EX.email, tempToken: exampleTempToken }] },
)

export const CodeBody = Type.Object(
  { token: Code6, tempToken: Jwt },
  { additionalProperties: false, examples: [{ token: '482913', tempToken: EX.tempJwt }] },
)

/** The permanent token of a login, a verification or a completed wallet sign-in. */
export const LoginData = Type.Object(
  {
    token: Type.String({ description: 'the permanent token: send it as `Authorization: Bearer <token>`' }),
    token_type: Type.Literal('jwt'),
    expiresIn: Type.Integer({ description: 'expiry, Unix milliseconds (ten years ahead)' }),
    isVerified: Type.Boolean({ description: 'the email is verified' }),
  },
  {
    $id: 'Session',
    examples: [{ token: EX.jwt, token_type: 'jwt', expiresIn: EX.permanentExpiresIn, isVerified: true }],
  },
)

export const EmailBody = Type.Object(
  { email: Email },
  { additionalProperties: false, examples: [{ email: EX.email }] },
)
export const TempTokenData = Type.Object({ tempToken: TokenObject })

export const LoginBody = Type.Object(
  { email: Email, password: Password },
  { additionalProperties: false, examples: [{ email: EX.email, password: EX.password }] },
)

/** A login that needs the second factor: finish it with POST /v1/auth/login/2fa. */
export const TwoFaChallengeData = Type.Object(
  {
    twoFaRequired: Type.Literal(true),
    twoFaType: Type.String({
      description: '`email` (a code was mailed) or `google_auth` (authenticator app)',
    }),
    tempToken: TokenObject,
  },
  {
    $id: 'TwoFaChallenge',
    examples: [{ twoFaRequired: true, twoFaType: 'email', tempToken: exampleTempToken }],
  },
)

export const PasswordChangeBody = Type.Object(
  { token: Code6, tempToken: Jwt, password: Password },
  {
    additionalProperties: false,
    examples: [{ token: '482913', tempToken: EX.tempJwt, password: 'N3w!password' }],
  },
)
