// Collection types (ICollectionTypeDto of the public SDK): the list and one type.
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id, NullableTimestamp, PaginationQuery, Str, Timestamp } from '../../http/schemas.ts'

/** What a collection's `type` may be written as (the value of a collection type). */
export const TYPE_VALUE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9 _-]*$'

const example = {
  _id: '000000000000000000000001',
  name: 'Job',
  value: 'job',
  description: '',
  active: true,
  createdAt: EX.created,
  updatedAt: EX.created,
  updateAt: EX.created,
  deletedAt: null,
}

export const CollectionTypeSchema = Type.Object(
  {
    _id: Type.String(),
    name: Type.String({ description: 'what people read' }),
    value: Type.String({ description: 'what a collection’s `type` holds' }),
    description: Type.String(),
    active: Type.Boolean({ description: 'false once an admin retired it (admin lists only)' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    updateAt: Type.Optional(Timestamp),
    deletedAt: NullableTimestamp,
  },
  {
    $id: 'CollectionType',
    description:
      'A type collections may be created with. `updateAt` repeats `updatedAt` under the SDK’s spelling; `deletedAt` is when it was retired.',
    examples: [example],
  },
)

export const CollectionTypePage = Type.Object(
  {
    data: Type.Array(CollectionTypeSchema),
    total: Type.Integer(),
    pages: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
  },
  { $id: 'CollectionTypePage', examples: [{ data: [example], total: 1, pages: 1, page: 1, limit: 12 }] },
)

export const CollectionTypeQuery = Type.Object(
  {
    ...PaginationQuery,
    search: Type.Optional(Str(40, { description: 'the start of a name or value, any case' })),
    name: Type.Optional(Str(80, { description: 'exact name, any case' })),
    value: Type.Optional(Str(40, { description: 'exact value, any case' })),
  },
  { additionalProperties: false },
)

/** The SDK's getACollectionType repeats the id as `?id=`; it must equal the path's. */
export const CollectionTypeOneQuery = Type.Object(
  { id: Type.Optional(Id('the same id as the path (the SDK sends it)')) },
  { additionalProperties: false },
)
