// Collection types as admins see and change them: every type (retired ones too), a new type, and
// a rename or retirement. Users read the active ones at /v1/collection-type.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { envelope, IdParams, ok, PaginationQuery, Str } from '../../../http/schemas.ts'
import { CollectionTypePage, CollectionTypeSchema, TYPE_VALUE_PATTERN } from '../../collections/types.ts'
import type { AdminAccess } from '../access.ts'
import type { AdminCollectionTypes } from '../collection-types.ts'
import { Reason } from '../schemas.ts'
import { actorOf, adminErrors, guardElevated, security, tags } from './common.ts'

const CreateBody = Type.Object(
  {
    name: Str(80, { minLength: 1, description: 'what people read' }),
    value: Type.String({
      minLength: 1,
      maxLength: 40,
      pattern: TYPE_VALUE_PATTERN,
      description: 'what a collection’s `type` holds (unique in any case)',
    }),
    description: Type.Optional(Str(500)),
    reason: Reason,
  },
  {
    additionalProperties: false,
    examples: [{ name: 'Bounty', value: 'bounty', reason: 'Bounties launch this week' }],
  },
)

const UpdateBody = Type.Object(
  {
    name: Type.Optional(Str(80, { minLength: 1 })),
    description: Type.Optional(Str(500)),
    active: Type.Optional(
      Type.Boolean({
        description:
          'false retires the type (no new collection may use it; existing ones keep it); true restores it',
      }),
    ),
    reason: Reason,
  },
  { additionalProperties: false, examples: [{ active: false, reason: 'Gigs are jobs now' }] },
)

const ListQuery = Type.Object(
  { ...PaginationQuery, search: Type.Optional(Str(40, { description: 'the start of a name or value' })) },
  { additionalProperties: false },
)

export const adminCollectionTypeRoutes: FastifyPluginAsyncTypebox<{
  access: AdminAccess
  types: AdminCollectionTypes
}> = async (app, { access, types }) => {
  guardElevated(app, access)

  app.get(
    '/v1/admin/collection-types',
    {
      schema: {
        operationId: 'adminCollectionTypes',
        summary: 'Every collection type, retired ones too (`active: false`), oldest first',
        tags,
        security,
        querystring: ListQuery,
        response: { 200: envelope(CollectionTypePage), ...adminErrors() },
      },
    },
    async (req) => ok(await types.list(req.query)),
  )

  app.post(
    '/v1/admin/collection-types',
    {
      schema: {
        operationId: 'adminCreateCollectionType',
        summary: 'Add a collection type (audited)',
        tags,
        security,
        body: CreateBody,
        response: {
          200: envelope(CollectionTypeSchema, 'Collection type created'),
          ...adminErrors({
            VALIDATION_ERROR: 'a field fails its schema, or the name is blank',
            COLLECTION_TYPE_EXISTS: 'a type with this value exists (in any case, retired or not)',
          }),
        },
      },
    },
    async (req) => ok(await types.create(actorOf(req), req.body), 'Collection type created'),
  )

  app.patch(
    '/v1/admin/collection-types/:id',
    {
      schema: {
        operationId: 'adminUpdateCollectionType',
        summary: 'Rename, describe, retire or restore a collection type (audited); its value never changes',
        tags,
        security,
        params: IdParams,
        body: UpdateBody,
        response: {
          200: envelope(CollectionTypeSchema, 'Collection type updated'),
          ...adminErrors({
            VALIDATION_ERROR: 'a field fails its schema, or the name is blank',
            NOT_FOUND: 'no collection type has this id',
          }),
        },
      },
    },
    async (req) => ok(await types.update(actorOf(req), req.params.id, req.body), 'Collection type updated'),
  )
}
