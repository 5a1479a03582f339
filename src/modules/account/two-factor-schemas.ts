// The two-factor contract: setup (#41–#43), codes for sensitive actions (#44) and the second login
// step (#5, #6).
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Code6, Email, Jwt, Password } from '../../http/schemas.ts'

const strict = { additionalProperties: false } as const

export const InitiateTwoFaBody = Type.Object(
  { type: Type.Union([Type.Literal('email'), Type.Literal('google_auth')]) },
  { ...strict, examples: [{ type: 'google_auth' }] },
)
export const InitiateTwoFaData = Type.Object(
  {
    type: Type.String({ description: '`email` or `google_auth`' }),
    secret: Type.Optional(Type.String({ description: 'base32 TOTP secret (google_auth only)' })),
    otpauthUrl: Type.Optional(Type.String({ description: 'otpauth:// URI for an authenticator app' })),
  },
  {
    examples: [
      {
        type: 'google_auth',
        secret: 'NHHHMSF6FDLMBBBOY2USI2LQN2RLNGRH',
        otpauthUrl:
          'otpauth://totp/WorkPay:ada%40example.com?issuer=WorkPay&secret=NHHHMSF6FDLMBBBOY2USI2LQN2RLNGRH&algorithm=SHA1&digits=6&period=30',
      },
    ],
  },
)
export const TwoFaCodeBody = Type.Object({ code: Code6 }, { ...strict, examples: [{ code: '482913' }] })
export const SensitiveCodeBody = Type.Object(
  {
    emailType: Type.Optional(Type.Literal('two_fa', { description: 'only `two_fa`; the default' })),
    password: Type.Optional(Password),
  },
  { ...strict, examples: [{ emailType: 'two_fa' }] },
)
export const LoginTwoFaBody = Type.Object(
  { tempToken: Jwt, code: Code6 },
  { ...strict, examples: [{ tempToken: EX.tempJwt, code: '482913' }] },
)
export const TwoFaEmailCodeBody = Type.Object(
  { email: Email },
  { ...strict, examples: [{ email: EX.email }] },
)
