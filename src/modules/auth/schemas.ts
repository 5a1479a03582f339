// The email sign-up and login contract (spec #1–#9).
import { Type } from 'typebox'
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
  { additionalProperties: false },
)

export const RegisterData = Type.Object({ email: Type.String(), tempToken: TokenObject })

export const CodeBody = Type.Object({ token: Code6, tempToken: Jwt }, { additionalProperties: false })

export const LoginData = Type.Object({
  token: Type.String(),
  token_type: Type.Literal('jwt'),
  expiresIn: Type.Integer(),
  isVerified: Type.Boolean(),
})

export const EmailBody = Type.Object({ email: Email }, { additionalProperties: false })
export const TempTokenData = Type.Object({ tempToken: TokenObject })

export const LoginBody = Type.Object({ email: Email, password: Password }, { additionalProperties: false })

export const TwoFaChallengeData = Type.Object({
  twoFaRequired: Type.Literal(true),
  twoFaType: Type.String(),
  tempToken: TokenObject,
})

export const PasswordChangeBody = Type.Object(
  { token: Code6, tempToken: Jwt, password: Password },
  { additionalProperties: false },
)
