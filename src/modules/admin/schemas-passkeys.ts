// The contract of operators' passkeys (WebAuthn) and of clearing an account's second factor. The
// ceremony options and the browser's answers are the W3C JSON forms (PublicKeyCredential*JSON):
// what `PublicKeyCredential.parseCreationOptionsFromJSON` reads and `credential.toJSON()` writes.
import { Type } from 'typebox'
import { NullableTimestamp, Str, Timestamp } from '../../http/schemas.ts'
import { Reason } from './schemas.ts'

const B64url = (max: number, description: string) =>
  Type.String({ minLength: 1, maxLength: max, pattern: '^[A-Za-z0-9_-]+={0,2}$', description })

// One story for the examples: the operator Ada (console.example.com) has a passkey on her work
// laptop, unlocks her session with it, and adds a second one. The answers were made by a software
// authenticator for the example challenges (the signatures are not meant to verify).
const EX_RP_ID = 'console.example.com'
const EX_CREDENTIAL = 'p0lF3n3xZ2E7bFhM1kX8Qg'
const EX_NEW_CREDENTIAL = '1W1Zsl2MU_uP19eEb-lb3jG-CnJV5fLSB1gW1L9P3gg'
const EX_REGISTER_CHALLENGE = 'khVbQOq0WyXBPRSu7uSM_yGBKB-YB2kiTk5f6l7KjlU'
const EX_AUTH_CHALLENGE = '-arOdjgJren9YG81KRmhQxubalvKVaPSOM9fiwXbvHg'

const Transports = Type.Array(Str(20), { maxItems: 10, description: 'how the authenticator is reached' })

/** Options for navigator.credentials.create(): the W3C JSON form (binary values base64url). */
export const PasskeyRegistrationOptions = Type.Object(
  {
    challenge: B64url(200, 'single-use, 5 minutes, bound to this session'),
    rp: Type.Object(
      { id: Type.Optional(Type.String()), name: Type.String() },
      { additionalProperties: true },
    ),
    user: Type.Object(
      { id: Type.String(), name: Type.String(), displayName: Type.String() },
      { additionalProperties: true },
    ),
    pubKeyCredParams: Type.Array(
      Type.Object({ type: Type.String(), alg: Type.Integer() }, { additionalProperties: true }),
    ),
    timeout: Type.Optional(Type.Integer()),
    excludeCredentials: Type.Optional(
      Type.Array(
        Type.Object(
          { id: Type.String(), type: Type.String(), transports: Type.Optional(Transports) },
          { additionalProperties: true },
        ),
      ),
    ),
    authenticatorSelection: Type.Optional(Type.Object({}, { additionalProperties: true })),
    attestation: Type.Optional(Type.String()),
    extensions: Type.Optional(Type.Object({}, { additionalProperties: true })),
    hints: Type.Optional(Type.Array(Type.String())),
  },
  {
    $id: 'AdminPasskeyRegistrationOptions',
    additionalProperties: true,
    examples: [
      {
        challenge: EX_REGISTER_CHALLENGE,
        rp: { name: 'WorkPay operator console', id: EX_RP_ID },
        user: { id: 'NjVmMWMwYTJiM2M0ZDVlNmY3YThiOWM3', name: 'ada@example.com', displayName: '' },
        pubKeyCredParams: [
          { alg: -8, type: 'public-key' },
          { alg: -7, type: 'public-key' },
          { alg: -257, type: 'public-key' },
        ],
        timeout: 300000,
        attestation: 'none',
        excludeCredentials: [{ id: EX_CREDENTIAL, transports: ['internal'], type: 'public-key' }],
        authenticatorSelection: {
          residentKey: 'preferred',
          userVerification: 'required',
          requireResidentKey: false,
        },
        extensions: { credProps: true },
        hints: [],
      },
    ],
  },
)

/** Options for navigator.credentials.get(). */
export const PasskeyAuthenticationOptions = Type.Object(
  {
    challenge: B64url(200, 'single-use, 5 minutes, bound to this session'),
    rpId: Type.Optional(Type.String()),
    timeout: Type.Optional(Type.Integer()),
    userVerification: Type.Optional(Type.String()),
    allowCredentials: Type.Optional(
      Type.Array(
        Type.Object(
          { id: Type.String(), type: Type.String(), transports: Type.Optional(Transports) },
          { additionalProperties: true },
        ),
      ),
    ),
    extensions: Type.Optional(Type.Object({}, { additionalProperties: true })),
    hints: Type.Optional(Type.Array(Type.String())),
  },
  {
    $id: 'AdminPasskeyAuthenticationOptions',
    additionalProperties: true,
    examples: [
      {
        rpId: EX_RP_ID,
        challenge: EX_AUTH_CHALLENGE,
        allowCredentials: [{ id: EX_CREDENTIAL, transports: ['internal'], type: 'public-key' }],
        timeout: 300000,
        userVerification: 'required',
      },
    ],
  },
)

const credentialFields = {
  id: B64url(1400, 'the credential id'),
  rawId: B64url(1400, 'the credential id'),
  type: Type.Literal('public-key'),
  authenticatorAttachment: Type.Optional(Type.String({ maxLength: 40 })),
  clientExtensionResults: Type.Object({}, { additionalProperties: true }),
}

export const RegistrationCredential = Type.Object(
  {
    ...credentialFields,
    response: Type.Object(
      {
        clientDataJSON: B64url(4096, 'client data'),
        attestationObject: B64url(16384, 'attestation object'),
        transports: Type.Optional(Transports),
      },
      { additionalProperties: true, description: 'AuthenticatorAttestationResponseJSON' },
    ),
  },
  {
    additionalProperties: false,
    description: 'RegistrationResponseJSON: what `credential.toJSON()` answers',
  },
)

export const AuthenticationCredential = Type.Object(
  {
    ...credentialFields,
    response: Type.Object(
      {
        clientDataJSON: B64url(4096, 'client data'),
        authenticatorData: B64url(4096, 'authenticator data'),
        signature: B64url(1024, 'signature'),
        userHandle: Type.Optional(Type.Union([Type.String({ maxLength: 400 }), Type.Null()])),
      },
      { additionalProperties: true, description: 'AuthenticatorAssertionResponseJSON' },
    ),
  },
  {
    additionalProperties: false,
    description: 'AuthenticationResponseJSON: what `credential.toJSON()` answers',
  },
)

export const RegistrationOptionsBody = Type.Object(
  {
    code: Type.Optional(
      Type.String({
        pattern: '^[0-9]{6}$',
        description:
          'the authenticator app’s current code: only for a first passkey from a session that is not unlocked',
      }),
    ),
  },
  { additionalProperties: false, examples: [{}] },
)

export const RegisterPasskeyBody = Type.Object(
  {
    name: Str(60, {
      minLength: 1,
      pattern: '\\S',
      description: 'what the operator calls it, e.g. "Work laptop"',
    }),
    credential: RegistrationCredential,
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Security key',
        credential: {
          id: EX_NEW_CREDENTIAL,
          rawId: EX_NEW_CREDENTIAL,
          type: 'public-key',
          authenticatorAttachment: 'platform',
          clientExtensionResults: {},
          response: {
            clientDataJSON:
              'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoia2hWYlFPcTBXeVhCUFJTdTd1U01feUdCS0ItWUIya2lUazVmNmw3S2psVSIsIm9yaWdpbiI6Imh0dHBzOi8vY29uc29sZS5leGFtcGxlLmNvbSIsImNyb3NzT3JpZ2luIjpmYWxzZX0',
            attestationObject:
              'o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVikJ48GFD6uHyhvB5bJ7c-K5xZgokRMBnfNtxdDrN5SUVNFAAAAAAAAAAAAAAAAAAAAAAAAAAAAINVtWbJdjFP7j9fXhG_pW94xvgpyVeXy0gdYFtS_T94IpQECAyYgASFYIOET8n5EqQ2_7UEUMSrXZyUyEcyxDbo04XIV7YRvDHuPIlggiKriSsWQQ1sFEDkYARso-bxnae720ezRZa2tE3SFFsw',
            transports: ['internal'],
          },
        },
      },
    ],
  },
)

export const AuthenticatePasskeyBody = Type.Object(
  { credential: AuthenticationCredential },
  {
    additionalProperties: false,
    examples: [
      {
        credential: {
          id: EX_CREDENTIAL,
          rawId: EX_CREDENTIAL,
          type: 'public-key',
          authenticatorAttachment: 'platform',
          clientExtensionResults: {},
          response: {
            clientDataJSON:
              'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiLWFyT2RqZ0pyZW45WUc4MUtSbWhReHViYWx2S1ZhUFNPTTlmaXdYYnZIZyIsIm9yaWdpbiI6Imh0dHBzOi8vY29uc29sZS5leGFtcGxlLmNvbSIsImNyb3NzT3JpZ2luIjpmYWxzZX0',
            authenticatorData: 'J48GFD6uHyhvB5bJ7c-K5xZgokRMBnfNtxdDrN5SUVMFAAAABw',
            signature:
              'MEYCIQCz5H5KJvdKsrtsIPn2TrIKT-n-LpuBSgo0McDq1d3TRQIhANaeB_wmEOB_5nn5XaTC3hN4fE9_4q5dQ49IuCjuGqEx',
            userHandle: 'NjVmMWMwYTJiM2M0ZDVlNmY3YThiOWM3',
          },
        },
      },
    ],
  },
)

export const Passkey = Type.Object(
  {
    id: Type.String({ description: 'the credential id (base64url)' }),
    name: Type.String(),
    deviceType: Type.String({ description: '`singleDevice`, or `multiDevice` (synced by its provider)' }),
    backedUp: Type.Boolean(),
    transports: Type.Array(Type.String()),
    createdAt: Timestamp,
    lastUsedAt: NullableTimestamp,
  },
  {
    $id: 'AdminPasskey',
    examples: [
      {
        id: 'p0lF3n3xZ2E7bFhM1kX8Qg',
        name: 'Work laptop',
        deviceType: 'singleDevice',
        backedUp: false,
        transports: ['internal'],
        createdAt: '2026-01-01T12:00:00.000Z',
        lastUsedAt: '2026-01-02T09:30:00.000Z',
      },
    ],
  },
)

export const PasskeyList = Type.Object({ data: Type.Array(Passkey) }, { $id: 'AdminPasskeyList' })

export const PasskeyParams = Type.Object(
  { id: B64url(1400, 'the credential id') },
  { additionalProperties: false },
)

export const SecondFactorResetBody = Type.Object(
  {
    reason: Reason,
    factors: Type.Optional(
      Type.Array(Type.Union([Type.Literal('totp'), Type.Literal('passkeys')]), {
        minItems: 1,
        maxItems: 2,
        uniqueItems: true,
        description:
          'what to clear: the authenticator app (`totp`), every passkey (`passkeys`); default both',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { reason: 'Ticket 812: phone lost, identity checked on a video call', factors: ['totp', 'passkeys'] },
    ],
  },
)

export const SecondFactorReset = Type.Object(
  {
    userId: Type.String(),
    totpCleared: Type.Boolean({ description: 'the authenticator app was on and is now off' }),
    passkeysRemoved: Type.Integer({ minimum: 0 }),
    sessionsEnded: Type.Boolean({ description: 'every session of the account was revoked' }),
  },
  {
    $id: 'AdminSecondFactorReset',
    examples: [
      { userId: '65f1c0a2b3c4d5e6f7a8b9c7', totpCleared: true, passkeysRemoved: 2, sessionsEnded: true },
    ],
  },
)
