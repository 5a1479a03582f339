// The contract of identity verification: what the public SDK (`UserVerificationModule`) sends and
// reads, and Veriff's decision webhook (the operator's views are in admin-schemas.ts).
import { Type } from 'typebox'
import { Id, Timestamp } from '../../http/schemas.ts'

export const VERIFICATION_STATUSES = [
  'created',
  'submitted',
  'review',
  'approved',
  'declined',
  'resubmission_requested',
  'expired',
  'abandoned',
] as const
export const DOCUMENT_TYPES = [
  'PASSPORT',
  'ID_CARD',
  'RESIDENCE_PERMIT',
  'DRIVERS_LICENSE',
  'VISA',
  'OTHER',
] as const
export const MEDIA_CONTEXTS = ['face', 'document-front', 'document-back'] as const

const lit = <T extends readonly string[]>(values: T, description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  )

export const Status = lit(
  VERIFICATION_STATUSES,
  'created (images still to come) → submitted (all images in; with the operator review it waits for an operator) → approved | declined | resubmission_requested | expired | review (Veriff); abandoned when the user deleted it',
)
const Context = lit(MEDIA_CONTEXTS, 'what the image shows: the selfie, or the front or back of the document')
const Example = {
  _id: '6b04837cbce238a5cbe00b01',
  owner: '6b04837cbce238a5cbe00a01',
  createdAt: '2026-11-29T09:30:00.000Z',
}

export const CreateSessionBody = Type.Object(
  {
    firstName: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    lastName: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    gender: Type.Union([Type.Literal('M'), Type.Literal('F')]),
    country: Type.String({
      pattern: '^[A-Z]{2}$',
      description: 'the document’s issuing country, ISO 3166-1 alpha-2 (upper case)',
    }),
    fullAddress: Type.String({ minLength: 1, maxLength: 300, pattern: '\\S' }),
    documentType: lit(DOCUMENT_TYPES, 'the kind of identity document'),
    documentNumber: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9 -]+$' }),
    dateOfBirth: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD, in the past' }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        firstName: 'Ada',
        lastName: 'Lovelace',
        gender: 'F',
        country: 'GB',
        fullAddress: '12 St James’s Square, London',
        documentType: 'PASSPORT',
        documentNumber: 'P1234567',
        dateOfBirth: '1990-12-10',
      },
    ],
  },
)

export const CreateSessionResponse = Type.Object(
  {
    status: Type.Literal('success'),
    verification: Type.Object({
      id: Type.String({
        description: 'the provider’s session id (the verification’s own id with the operator review)',
      }),
      url: Type.String({ description: 'where the user continues: Veriff’s hosted flow, or the media route' }),
      vendorData: Type.String({ description: 'the verification’s id on this service' }),
      host: Type.String(),
      status: Status,
      sessionToken: Type.String(),
    }),
  },
  {
    description: 'The SDK’s CreateSessionResponse',
    examples: [
      {
        status: 'success',
        verification: {
          id: '6b04837cbce238a5cbe00b01',
          url: 'https://api.example.com/v1/user-verification/veriff/session/media',
          vendorData: '6b04837cbce238a5cbe00b01',
          host: 'https://api.example.com',
          status: 'created',
          sessionToken: '4b0c6c0f0a8f4e1c9d2b7a65e3f1c2d4',
        },
      },
    ],
  },
)

export const MediaBody = Type.Object(
  {
    context: Context,
    file: Type.Object(
      {
        content: Type.String({
          minLength: 1,
          description:
            'the image, base64-encoded (optionally as a data URL `data:image/jpeg;base64,…`); JPEG, PNG or WebP, detected from the bytes, at most VERIFICATION_MEDIA_MAX_BYTES decoded',
        }),
        name: Type.Optional(Type.String({ maxLength: 200, description: 'the original file name' })),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        context: 'face',
        file: { content: 'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ…', name: 'selfie.jpg' },
      },
    ],
  },
)

export const MediaResponse = Type.Object(
  {
    status: Status,
    image: Type.Object({
      context: Context,
      id: Id('the private file holding the image'),
      name: Type.String(),
      timestamp: Type.Null(),
      size: Type.Integer({ description: 'bytes' }),
      mimetype: Type.String(),
      url: Type.String({ description: 'a signed URL of the image, valid 300 seconds' }),
    }),
  },
  {
    description: 'The SDK’s SendSessionMediaResponse: the session’s status after this image',
    examples: [
      {
        status: 'created',
        image: {
          context: 'face',
          id: '6b04837cbce238a5cbe00c01',
          name: 'private/6b04837cbce238a5cbe00a01/1f0c.jpg',
          timestamp: null,
          size: 48213,
          mimetype: 'image/jpeg',
          url: 'https://api.example.com/files/private/6b04837cbce238a5cbe00a01/1f0c.jpg?expires=1798537800&signature=…',
        },
      },
    ],
  },
)

/** The person as the session declares them (the operator's view adds the document). */
export const PersonFields = {
  firstName: Type.String(),
  lastName: Type.String(),
  gender: Type.String(),
  dateOfBirth: Type.String(),
  fullAddress: Type.String(),
}

/** The example session's person and its selfie, as both views show them. */
export const PERSON_EXAMPLE = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  gender: 'F',
  dateOfBirth: '1990-12-10',
  fullAddress: '12 St James’s Square, London',
}
export const MEDIA_EXAMPLE = {
  _id: '6b04837cbce238a5cbe00c01',
  context: 'face',
  mimetype: 'image/jpeg',
  size: 48213,
  createdAt: '2026-11-29T09:31:00.000Z',
}

export const MediaItem = Type.Object({
  _id: Id('the private file holding the image'),
  context: Context,
  mimetype: Type.String(),
  size: Type.Integer(),
  createdAt: Timestamp,
})

export const Verification = Type.Object(
  {
    _id: Id('the verification'),
    owner: Id('the account verified'),
    sessionID: Type.String({ description: 'the provider’s session id' }),
    sessionToken: Type.String(),
    verificationID: Type.String(),
    providerCreatedTime: Timestamp,
    type: Type.String({ description: 'the provider: operator (review on the console) or veriff' }),
    status: Status,
    verificationMetaData: Type.Object({
      media: Type.Array(MediaItem),
      person: Type.Object(PersonFields),
    }),
    country: Type.String(),
    documentType: Type.String(),
    documentValidFrom: Type.Optional(Type.String()),
    documentValidUntil: Type.Optional(Type.String()),
    providerReason: Type.String({ description: 'why it was declined (empty otherwise)' }),
    providerReasonCode: Type.Optional(Type.Integer()),
    mediaId: Type.Optional(Type.String({ description: 'the latest image’s file id' })),
    mediaMimeType: Type.Optional(Type.String()),
    mediaUrl: Type.Optional(
      Type.String({ description: 'a signed URL of the latest image, valid 300 seconds' }),
    ),
    createdAt: Timestamp,
    deletedAt: Type.Optional(Timestamp),
    updatedAt: Timestamp,
  },
  {
    $id: 'Verification',
    description: 'The SDK’s IVerification',
    examples: [
      {
        ...Example,
        sessionID: '6b04837cbce238a5cbe00b01',
        sessionToken: '4b0c6c0f0a8f4e1c9d2b7a65e3f1c2d4',
        verificationID: '6b04837cbce238a5cbe00b01',
        providerCreatedTime: '2026-11-29T09:30:00.000Z',
        type: 'operator',
        status: 'submitted',
        verificationMetaData: {
          media: [MEDIA_EXAMPLE],
          person: PERSON_EXAMPLE,
        },
        country: 'GB',
        documentType: 'PASSPORT',
        providerReason: '',
        mediaId: '6b04837cbce238a5cbe00c01',
        mediaMimeType: 'image/jpeg',
        updatedAt: '2026-11-29T09:31:00.000Z',
      },
    ],
  },
)

export const Attempts = Type.Object(
  {
    status: Type.Literal('success'),
    verifications: Type.Array(Verification),
    attemptsLeft: Type.Integer({
      description: 'sessions the account may still start (VERIFICATION_MAX_ATTEMPTS)',
    }),
  },
  {
    description: 'The SDK’s SessionAttempts: every session the caller started, newest first',
    examples: [
      {
        status: 'success',
        verifications: (Verification as { examples?: unknown[] }).examples,
        attemptsLeft: 4,
      },
    ],
  },
)

export const VerificationList = Type.Array(Verification, {
  description: 'The caller’s verifications, newest first (deleted ones left out)',
})

/** Veriff's decision webhook: only what is read is named; the rest is kept as sent. */
export const VeriffDecision = Type.Object(
  {
    status: Type.Optional(Type.String()),
    verification: Type.Object(
      {
        id: Type.String({ minLength: 1, maxLength: 100 }),
        status: Type.String({ minLength: 1, maxLength: 50 }),
        code: Type.Optional(Type.Integer()),
        reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        reasonCode: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
        vendorData: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        document: Type.Optional(
          Type.Union([
            Type.Object(
              {
                validFrom: Type.Optional(Type.Union([Type.String(), Type.Null()])),
                validUntil: Type.Optional(Type.Union([Type.String(), Type.Null()])),
              },
              { additionalProperties: true },
            ),
            Type.Null(),
          ]),
        ),
      },
      { additionalProperties: true },
    ),
  },
  {
    additionalProperties: true,
    examples: [
      {
        status: 'success',
        verification: {
          id: 'f04bdb47-d3be-4b28-b028-a652feb060b5',
          code: 9001,
          status: 'approved',
          reason: null,
          reasonCode: null,
          vendorData: '6b04837cbce238a5cbe00b01',
          decisionTime: '2026-11-29T09:40:00.000Z',
          document: { number: 'P1234567', type: 'PASSPORT', country: 'GB', validUntil: '2030-01-01' },
        },
      },
    ],
  },
)

export const DecisionRecorded = Type.Object(
  {
    verificationId: Id('the verification'),
    status: Status,
    changed: Type.Boolean({ description: 'false when this decision was recorded before' }),
  },
  { examples: [{ verificationId: '6b04837cbce238a5cbe00b01', status: 'approved', changed: true }] },
)
