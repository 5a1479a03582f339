// The collection schema and store contract: the SDK's FieldDefinitionDto, ICollectionSchemaDto,
// ICollectionStoreDto and their lists.
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { PaginationQuery, Str, Timestamp } from '../../http/schemas.ts'
import { FIELD_TYPES } from './fields.ts'

export const FieldDefinitionDto = Type.Object(
  {
    name: Type.String({
      pattern: '^[A-Za-z][A-Za-z0-9_]{0,39}$',
      description: 'a letter, then letters, digits or _',
    }),
    type: Type.Union(
      FIELD_TYPES.map((t) => Type.Literal(t)),
      { description: FIELD_TYPES.join(', ') },
    ),
    required: Type.Boolean(),
    unique: Type.Boolean({
      description: 'no two records of the schema share the value (string and number fields)',
    }),
    default: Type.Optional(
      Str(500, { description: 'the value of a record that leaves the field out, as text' }),
    ),
    enum: Type.Optional(
      Type.Array(Str(200), { minItems: 1, maxItems: 100, description: 'string fields: the values allowed' }),
    ),
    minLength: Type.Optional(Type.Integer({ minimum: 0, description: 'strings: characters; arrays: items' })),
    maxLength: Type.Optional(Type.Integer({ minimum: 0, description: 'strings: characters; arrays: items' })),
    min: Type.Optional(Type.Number({ description: 'numbers: the least allowed' })),
    max: Type.Optional(Type.Number({ description: 'numbers: the most allowed' })),
  },
  { additionalProperties: false },
)

const FIELDS_EXAMPLE = [
  { name: 'title', type: 'string', required: true, unique: true, maxLength: 120 },
  {
    name: 'level',
    type: 'string',
    required: false,
    unique: false,
    enum: ['junior', 'senior'],
    default: 'junior',
  },
  { name: 'hours', type: 'number', required: false, unique: false, min: 0, max: 80 },
]

const schemaExample = {
  _id: EX.collectionId,
  name: 'Portfolio item',
  reference: 'portfolio-item',
  description: 'A piece of work to show',
  schema: FIELDS_EXAMPLE,
  createdAt: EX.created,
  updatedAt: EX.created,
}

export const CollectionSchemaDto = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    reference: Type.String({ description: 'the name as a slug: the `{ref}` of /v2/collection-store' }),
    description: Type.String(),
    schema: Type.Array(FieldDefinitionDto),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'CollectionSchema', examples: [schemaExample] },
)

export const CollectionSchemaPage = Type.Object(
  {
    data: Type.Array(CollectionSchemaDto),
    total: Type.Integer(),
    pages: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
  },
  {
    $id: 'CollectionSchemaPage',
    examples: [{ data: [schemaExample], total: 1, pages: 1, page: 1, limit: 12 }],
  },
)

export const SchemaListQuery = Type.Object(
  { ...PaginationQuery, name: Type.Optional(Str(100, { description: 'part of the name, any case' })) },
  { additionalProperties: false },
)

const Fields = Type.Array(FieldDefinitionDto, { minItems: 1, maxItems: 50 })

export const CreateSchemaBody = Type.Object(
  { name: Str(100, { minLength: 1 }), description: Str(2000), schema: Fields },
  {
    additionalProperties: false,
    examples: [{ name: 'Portfolio item', description: 'A piece of work to show', schema: FIELDS_EXAMPLE }],
  },
)

export const UpdateSchemaBody = Type.Object(
  { description: Type.Optional(Str(2000)), schema: Type.Optional(Fields) },
  { additionalProperties: false, minProperties: 1, examples: [{ description: 'Work to show on a profile' }] },
)

const recordExample = {
  _id: EX.fileId,
  title: 'Landing page',
  level: 'junior',
  hours: 12,
  owner: EX.userId,
  isPrivate: false,
  createdAt: EX.created,
  updatedAt: EX.created,
}

export const StoreRecord = Type.Object(
  {
    _id: Type.String(),
    owner: Type.String({ description: 'who created it (alone may change or delete it)' }),
    isPrivate: Type.Boolean({ description: 'seen by its owner only' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    $id: 'StoreRecord',
    additionalProperties: true,
    description:
      'A record: the schema’s fields beside `_id`, `owner`, `isPrivate`, `createdAt`, `updatedAt`.',
    examples: [recordExample],
  },
)

export const StoreRecordPage = Type.Object(
  {
    data: Type.Array(StoreRecord),
    total: Type.Integer(),
    pages: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
  },
  { $id: 'StoreRecordPage', examples: [{ data: [recordExample], total: 1, pages: 1, page: 1, limit: 12 }] },
)

export const RecordBody = Type.Object(
  { isPrivate: Type.Optional(Type.Boolean({ description: 'seen by its owner only (default false)' })) },
  {
    additionalProperties: true,
    description: 'The schema’s fields (checked against it), and `isPrivate`.',
    examples: [{ title: 'Landing page', hours: 12 }],
  },
)

export const RecordListQuery = Type.Object(
  { ...PaginationQuery },
  {
    additionalProperties: true,
    description: 'page, limit, and any field of the schema: records whose value equals it (as text)',
  },
)

export const RefParams = Type.Object(
  { ref: Str(100, { minLength: 1, description: 'the schema’s reference (or id)' }) },
  { additionalProperties: false },
)
export const RefIdParams = Type.Object(
  { ref: Str(100, { minLength: 1 }), id: Type.String({ pattern: '^[0-9a-f]{24}$' }) },
  { additionalProperties: false },
)
export const SchemaIdParams = Type.Object(
  { id: Str(100, { minLength: 1, description: 'the schema’s id or reference' }) },
  { additionalProperties: false },
)
