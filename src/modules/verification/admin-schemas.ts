// The operator's views of identity verification on /v1/admin/verifications: one session with the
// person as declared and its images, the list's filter, and the decision's body.
import { Type } from 'typebox'
import { Id, NullableTimestamp, PaginationQuery, Timestamp } from '../../http/schemas.ts'
import { MEDIA_EXAMPLE, MediaItem, PERSON_EXAMPLE, PersonFields, Status } from './schemas.ts'

const AdminMedia = Type.Object({
  ...MediaItem.properties,
  url: Type.String({ description: 'a signed URL of the image, valid 300 seconds' }),
})

export const AdminVerification = Type.Object(
  {
    _id: Id('the verification'),
    owner: Type.Object({
      _id: Id('the account'),
      email: Type.Union([Type.String(), Type.Null()]),
    }),
    provider: Type.String({ description: 'operator or veriff' }),
    status: Status,
    person: Type.Object({
      ...PersonFields,
      country: Type.String(),
      documentType: Type.String(),
      documentNumber: Type.String(),
    }),
    media: Type.Array(AdminMedia),
    reason: Type.String({ description: 'why it was declined, or the operator’s note on an approval' }),
    decidedBy: Type.Union([Type.String(), Type.Null()], {
      description: 'the operator’s account id, `veriff`, or null while undecided',
    }),
    decidedAt: NullableTimestamp,
    deletedAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    $id: 'AdminVerification',
    examples: [
      {
        _id: '6b04837cbce238a5cbe00b01',
        owner: { _id: '6b04837cbce238a5cbe00a01', email: 'ada@example.com' },
        provider: 'operator',
        status: 'submitted',
        person: {
          ...PERSON_EXAMPLE,
          country: 'GB',
          documentType: 'PASSPORT',
          documentNumber: 'P1234567',
        },
        media: [
          {
            ...MEDIA_EXAMPLE,
            url: 'https://api.example.com/files/private/6b04837cbce238a5cbe00a01/1f0c.jpg?expires=1798537800&signature=…',
          },
        ],
        reason: '',
        decidedBy: null,
        decidedAt: null,
        deletedAt: null,
        createdAt: '2026-11-29T09:30:00.000Z',
        updatedAt: '2026-11-29T09:31:00.000Z',
      },
    ],
  },
)

export const AdminListQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(Status),
  },
  { additionalProperties: false },
)

export const DecideBody = Type.Object(
  {
    reason: Type.String({
      minLength: 3,
      maxLength: 500,
      pattern: '\\S',
      description: 'why (3–500 characters): kept in the audit log; a rejection’s reason is shown to the user',
    }),
  },
  { additionalProperties: false, examples: [{ reason: 'The selfie does not match the passport photo' }] },
)
