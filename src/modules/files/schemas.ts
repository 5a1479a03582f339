// The public contract of the files module: the File record, the file summary other records embed,
// and the list query.
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id, NullableTimestamp, PaginationQuery, Timestamp } from '../../http/schemas.ts'

const NAME = `public/${EX.userId}/2f1d0c8e-7b5a-4f3e-9d21-6c4b8a0e5f17.png`
const FILE = {
  _id: EX.fileId,
  name: NAME,
  uploaded_by: EX.userId,
  type: 'image/png',
  size: '48213',
  bucket: 'local',
  url: `http://127.0.0.1:3000/v1/files/${NAME}`,
  meta: { originalName: 'logo.png' },
  status: true,
  deletedAt: null,
  createdAt: EX.created,
  updatedAt: EX.created,
  __v: 0,
}

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
  { $id: 'File', description: 'File record', examples: [FILE] },
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
  {
    $id: 'FileSummary',
    description: 'file summary',
    examples: [{ _id: FILE._id, name: FILE.name, type: FILE.type, size: FILE.size, url: FILE.url }],
  },
)

export const FileList = Type.Object(
  {
    count: Type.Integer({ description: 'total number of matching files', examples: [1] }),
    pages: Type.Integer({ examples: [1] }),
    page: Type.Integer({ examples: [1] }),
    limit: Type.Integer({ examples: [12] }),
    data: Type.Array(FileRecord),
  },
  { $id: 'FilePage' },
)

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
  examples: [
    `http://127.0.0.1:3000/v1/files/private/${EX.userId}/9a0e5c1b-2d4f-4e6a-8b7c-3f1d2e0a9b8c.pdf?expires=1795458809&signature=4c3f1a9e0b7d2c6e8f5a1b3d7e9c0f2a`,
  ],
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
    kid: Type.Optional(
      Type.String({
        maxLength: 20,
        description: 'the id of the key that signed the URL (URL_SIGNING_SECRET)',
      }),
    ),
  },
  { additionalProperties: true },
)
