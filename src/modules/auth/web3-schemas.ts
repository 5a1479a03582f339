// The wallet sign-in contract (spec #10–#12).
import { Type } from 'typebox'
import { EX, exampleTempToken } from '../../http/examples.ts'
import { Email, Jwt, Str, TokenObject } from '../../http/schemas.ts'

const Name = Str(100, { minLength: 1, pattern: '\\S' })
const ACCOUNT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

export const Web3RequestBody = Type.Object(
  {
    account: Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      description:
        'wallet address: 0x and 40 hexadecimal digits, either all lower case or with a valid EIP-55 checksum',
    }),
  },
  { additionalProperties: false, examples: [{ account: ACCOUNT }] },
)

export const Web3RequestData = Type.Object({
  message: Type.String({
    description: 'EIP-4361 (Sign-In with Ethereum) message to sign with personal_sign',
    examples: [
      `127.0.0.1:3000 wants you to sign in with your Ethereum account:\n${ACCOUNT}\n\nApprove this request to sign in to WorkPay.\n\nURI: http://127.0.0.1:3000\nVersion: 1\nChain ID: 31337\nNonce: ef655e49944b9542a2dd26bf72c611ef\nIssued At: 2026-11-23T18:18:30.290Z\nExpiration Time: 2026-11-23T18:33:30.290Z`,
    ],
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
  {
    additionalProperties: false,
    examples: [
      {
        signedMessage:
          '0x6f2c0e9b1d0d3a8b2d6f4b3c8a4e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c45d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c1b',
        tempToken: EX.tempJwt,
      },
    ],
  },
)

const Account = Type.String({ description: 'the wallet address, EIP-55 checksummed', examples: [ACCOUNT] })

export const Web3PendingData = Type.Object({ account: Account, tempToken: TokenObject })

export const Web3SessionData = Type.Object(
  {
    account: Account,
    token: Type.String({ description: 'the permanent token' }),
    token_type: Type.Literal('jwt'),
    expiresIn: Type.Integer({ description: 'expiry, Unix milliseconds' }),
    isVerified: Type.Boolean(),
  },
  {
    $id: 'Web3Session',
    examples: [
      {
        account: ACCOUNT,
        token: EX.jwt,
        token_type: 'jwt',
        expiresIn: EX.permanentExpiresIn,
        isVerified: true,
      },
    ],
  },
)

export const Web3OnboardBody = Type.Object(
  { tempToken: Jwt, firstName: Name, lastName: Name, email: Email },
  {
    additionalProperties: false,
    examples: [{ tempToken: EX.tempJwt, firstName: 'Ada', lastName: 'Lovelace', email: EX.email }],
  },
)

export const Web3OnboardData = Type.Object(
  { tempToken: TokenObject, isVerified: Type.Boolean() },
  { examples: [{ tempToken: exampleTempToken, isVerified: false }] },
)
