// The wallet sign-in contract (spec #10–#12).
import { Type } from 'typebox'
import { Email, Jwt, Str, TokenObject } from '../../http/schemas.ts'

const Name = Str(100, { minLength: 1, pattern: '\\S' })

export const Web3RequestBody = Type.Object(
  {
    account: Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      description:
        'wallet address: 0x and 40 hexadecimal digits, either all lower case or with a valid EIP-55 checksum',
    }),
  },
  { additionalProperties: false },
)

export const Web3RequestData = Type.Object({
  message: Type.String({
    description: 'EIP-4361 (Sign-In with Ethereum) message to sign with personal_sign',
  }),
  tempToken: TokenObject,
})

export const Web3ValidateBody = Type.Object(
  {
    signedMessage: Type.String({
      pattern: '^0x([0-9a-fA-F]{2})+$',
      maxLength: 16384,
      description: 'hex signature of the message (EIP-191; or the wallet contract signature, EIP-1271)',
    }),
    tempToken: Jwt,
  },
  { additionalProperties: false },
)

const Account = Type.String({ description: 'the wallet address, EIP-55 checksummed' })

export const Web3PendingData = Type.Object({ account: Account, tempToken: TokenObject })

export const Web3SessionData = Type.Object({
  account: Account,
  token: Type.String(),
  token_type: Type.Literal('jwt'),
  expiresIn: Type.Integer({ description: 'expiry, Unix milliseconds' }),
  isVerified: Type.Boolean(),
})

export const Web3OnboardBody = Type.Object(
  { tempToken: Jwt, firstName: Name, lastName: Name, email: Email },
  { additionalProperties: false },
)

export const Web3OnboardData = Type.Object({ tempToken: TokenObject, isVerified: Type.Boolean() })
