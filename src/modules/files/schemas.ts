// The public contract of the files module: the File record, the file summary other records embed,
// and the list query.
import { Type } from 'typebox'
import { Id, NullableTimestamp, PaginationQuery, Timestamp } from '../../http/schemas.ts'

export const FileRecord = Type.Object(
  {
    _id: Id(),
    name: Type.String({
      description:
        'storage path: `public/` or `private/`, the uploader id, then a generated UUID with the extension',
    }),
    uploaded_by: Id('uploader user id'),
    type: Type.String({ description: 'MIME type detected from the content' }),
    size: Type.String({ description: 'size in bytes, as a decimal string' }),
    bucket: Type.String({ description: 'storage bucket name (`local` for the embedded disk store)' }),
    url: Type.String({
      description:
        'address of the object: direct for public files; for private files the unsigned address, which answers only with the signature from GET /v1/upload/url/{id}',
    }),
    meta: Type.Object({ originalName: Type.String({ description: 'sanitised original file name' }) }),
    status: Type.Boolean({ description: 'true while active' }),
    deletedAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    __v: Type.Integer(),
  },
  { description: 'File record' },
)

/** What other records (profile images, collection attachments) embed. */
export const FileSummary = Type.Object(
  {
    _id: Id(),
    name: Type.String(),
    type: Type.String(),
    size: Type.String(),
    url: Type.String(),
  },
  { description: 'file summary' },
)

export const FileList = Type.Object({
  count: Type.Integer({ description: 'total number of matching files' }),
  pages: Type.Integer(),
  page: Type.Integer(),
  limit: Type.Integer(),
  data: Type.Array(FileRecord),
})

export const FileListQuery = Type.Object(
  {
    ...PaginationQuery,
    type: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9.+/-]{1,100}$',
        description: 'MIME type prefix, e.g. `image/` or `application/pdf`',
      }),
    ),
    visibility: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('private')])),
  },
  { additionalProperties: false },
)

export const SignedUrl = Type.String({
  description: 'pre-signed GET address of the object, valid 300 seconds',
})

export const DownloadParams = Type.Object(
  {
    visibility: Type.Union([Type.Literal('public'), Type.Literal('private')]),
    owner: Type.String({ pattern: '^[0-9a-f]{24}$' }),
    object: Type.String({ pattern: '^[0-9a-f-]{36}\\.[a-z0-9]{1,10}$' }),
  },
  { additionalProperties: false },
)

export const DownloadQuery = Type.Object(
  {
    expires: Type.Optional(Type.String({ maxLength: 20 })),
    signature: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: true },
)
