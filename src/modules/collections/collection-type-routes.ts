// HTTP for collection types (/v1/collection-type, as the public SDK calls it): what `type` a new
// collection may have. Admins change them under /v1/admin/collection-types.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../http/errors.ts'
import { bearer, envelope, guardedErrors, IdParams, ok } from '../../http/schemas.ts'
import {
  CollectionTypeOneQuery,
  CollectionTypePage,
  CollectionTypeQuery,
  CollectionTypeSchema,
} from './collection-type-schemas.ts'
import type { CollectionTypeService } from './collection-types.ts'

export const collectionTypeRoutes: FastifyPluginAsyncTypebox<{ types: CollectionTypeService }> = async (
  app,
  { types },
) => {
  const tags = ['collections']

  app.get(
    '/v1/collection-type',
    {
      schema: {
        operationId: 'listCollectionTypes',
        summary: 'The types a collection may be created with',
        description:
          'Active types, oldest first (the defaults lead). Query: `page`, `limit` (12, max 100), `search` (start of a name or value), `name`, `value` (exact, any case).',
        tags,
        security: bearer,
        querystring: CollectionTypeQuery,
        response: {
          200: envelope(CollectionTypePage, 'Collection types'),
          ...guardedErrors({ VALIDATION_ERROR: 'a query value fails its schema or is unknown' }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await types.list(req.query), 'Collection types'),
  )

  app.get(
    '/v1/collection-type/:id',
    {
      schema: {
        operationId: 'getCollectionType',
        summary: 'One active collection type',
        tags,
        security: bearer,
        params: IdParams,
        querystring: CollectionTypeOneQuery,
        response: {
          200: envelope(CollectionTypeSchema, 'Collection type'),
          ...guardedErrors({
            VALIDATION_ERROR: 'the id is not a record id, or `?id=` names another one',
            NOT_FOUND: { when: 'no active type has this id', message: 'collection type not found' },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      if (req.query.id !== undefined && req.query.id !== req.params.id)
        throw errors.field('/id', 'the query id must be the id of the path')
      return ok(await types.get(req.params.id), 'Collection type')
    },
  )
}
