// HTTP for collection schemas and stores: reads and records under /v2 (as the public SDK calls
// them), schema changes under /v1/admin (the SDK's own create, update and delete cannot be sent:
// they fail with `CryptoJS is not defined` before any request).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { caller } from '../../http/auth.ts'
import { bearer, EmptyObject, envelope, guardedErrors, ok } from '../../http/schemas.ts'
import { adminErrors, guardElevated } from '../admin/module.ts'
import type { AdminAccess } from '../admin/types.ts'
import {
  CollectionSchemaDto,
  CollectionSchemaPage,
  CreateSchemaBody,
  RecordBody,
  RecordListQuery,
  RefIdParams,
  RefParams,
  SchemaIdParams,
  SchemaListQuery,
  StoreRecord,
  StoreRecordPage,
  UpdateSchemaBody,
} from './schemas.ts'
import type { StoreService } from './service.ts'

const NO_SCHEMA = { when: 'no schema has this reference or id', message: 'collection schema not found' }
const NO_RECORD = {
  when: 'no record of the schema has this id, or it is someone else’s private one',
  message: 'record not found',
}
const BAD_RECORD =
  'a value that is not of its field’s type, outside its enum, length or range, a missing required field, or a key that is not a field (`data.errors` names each)'

export const storeRoutes: FastifyPluginAsyncTypebox<{ stores: StoreService }> = async (app, { stores }) => {
  const tags = ['collection stores']
  const security = bearer
  app.addHook('onRequest', app.authenticate)

  app.get(
    '/v2/collection-schema/',
    {
      schema: {
        operationId: 'listCollectionSchemas',
        summary: 'The collection schemas, newest first (the SDK’s collectionSchema.getAll)',
        tags,
        security,
        querystring: SchemaListQuery,
        response: { 200: envelope(CollectionSchemaPage, 'Collection schemas'), ...guardedErrors() },
      },
    },
    async (req) => ok(await stores.schemas(req.query), 'Collection schemas'),
  )

  app.get(
    '/v2/collection-schema/:id',
    {
      schema: {
        operationId: 'getCollectionSchema',
        summary: 'One collection schema by id or reference (the SDK’s collectionSchema.getById)',
        tags,
        security,
        params: SchemaIdParams,
        response: {
          200: envelope(CollectionSchemaDto, 'Collection schema'),
          ...guardedErrors({ NOT_FOUND: NO_SCHEMA }),
        },
      },
    },
    async (req) => ok(await stores.schema(req.params.id), 'Collection schema'),
  )

  app.post(
    '/v2/collection-store/:ref',
    {
      schema: {
        operationId: 'createStoreRecord',
        summary: 'Adds a record to a schema’s store (the SDK’s collectionStore.create)',
        description:
          'The caller owns it. Defaults fill left-out fields; a `unique` field’s value taken by another record is 409.',
        tags,
        security,
        params: RefParams,
        body: RecordBody,
        response: {
          200: envelope(StoreRecord, 'Record created'),
          ...guardedErrors({
            VALIDATION_ERROR: BAD_RECORD,
            NOT_FOUND: NO_SCHEMA,
            RECORD_VALUE_TAKEN: {
              when: 'a unique field’s value is another record’s',
              message: 'Another record already has this title',
            },
          }),
        },
      },
    },
    async (req) => ok(await stores.create(caller(req).userId, req.params.ref, req.body), 'Record created'),
  )

  app.get(
    '/v2/collection-store/:ref',
    {
      schema: {
        operationId: 'listStoreRecords',
        summary:
          'A schema’s records, newest first, filtered by field values (the SDK’s collectionStore.getAll)',
        description:
          'Everyone’s records but others’ private ones. Any query key besides page and limit is a field of the schema, matched exactly (as text).',
        tags,
        security,
        params: RefParams,
        querystring: RecordListQuery,
        response: {
          200: envelope(StoreRecordPage, 'Records'),
          ...guardedErrors({
            VALIDATION_ERROR: 'page or limit out of range, or a filter that is not a field',
            NOT_FOUND: NO_SCHEMA,
          }),
        },
      },
    },
    async (req) => ok(await stores.list(caller(req).userId, req.params.ref, req.query), 'Records'),
  )

  app.get(
    '/v2/collection-store/:ref/count',
    {
      schema: {
        operationId: 'countStoreRecords',
        summary: 'How many records the same filters find (the SDK’s collectionStore.getCount)',
        tags,
        security,
        params: RefParams,
        querystring: RecordListQuery,
        response: {
          200: envelope(Type.Integer({ examples: [3] }), 'Record count'),
          ...guardedErrors({ VALIDATION_ERROR: 'a filter that is not a field', NOT_FOUND: NO_SCHEMA }),
        },
      },
    },
    async (req) => ok(await stores.count(caller(req).userId, req.params.ref, req.query), 'Record count'),
  )

  app.get(
    '/v2/collection-store/:ref/:id',
    {
      schema: {
        operationId: 'getStoreRecord',
        summary: 'One record (the SDK’s collectionStore.getById)',
        tags,
        security,
        params: RefIdParams,
        response: { 200: envelope(StoreRecord, 'Record'), ...guardedErrors({ NOT_FOUND: NO_RECORD }) },
      },
    },
    async (req) => ok(await stores.one(caller(req).userId, req.params.ref, req.params.id), 'Record'),
  )

  app.patch(
    '/v2/collection-store/:ref/:id',
    {
      schema: {
        operationId: 'updateStoreRecord',
        summary: 'Changes fields of the caller’s record (the SDK’s collectionStore.update)',
        description:
          'Fields sent replace theirs; `null` removes an optional one. The record as a whole must still fit the schema.',
        tags,
        security,
        params: RefIdParams,
        body: RecordBody,
        response: {
          200: envelope(StoreRecord, 'Record updated'),
          ...guardedErrors({
            VALIDATION_ERROR: BAD_RECORD,
            FORBIDDEN: {
              when: 'the record is someone else’s',
              message: 'Only the record’s owner may change it',
            },
            NOT_FOUND: NO_RECORD,
            RECORD_VALUE_TAKEN: {
              when: 'a unique field’s value is another record’s',
              message: 'Another record already has this title',
            },
          }),
        },
      },
    },
    async (req) =>
      ok(await stores.update(caller(req).userId, req.params.ref, req.params.id, req.body), 'Record updated'),
  )

  app.delete(
    '/v2/collection-store/:ref/:id',
    {
      schema: {
        operationId: 'deleteStoreRecord',
        summary: 'Deletes the caller’s record (the SDK’s collectionStore.delete)',
        tags,
        security,
        params: RefIdParams,
        response: {
          200: envelope(EmptyObject, 'Record deleted'),
          ...guardedErrors({
            FORBIDDEN: {
              when: 'the record is someone else’s',
              message: 'Only the record’s owner may delete it',
            },
            NOT_FOUND: NO_RECORD,
          }),
        },
      },
    },
    async (req) =>
      ok(await stores.remove(caller(req).userId, req.params.ref, req.params.id), 'Record deleted'),
  )
}

/** Schema changes: admins with an elevated session, as every admin route. */
export const adminSchemaRoutes: FastifyPluginAsyncTypebox<{
  stores: StoreService
  access: AdminAccess
}> = async (app, { stores, access }) => {
  guardElevated(app, access)
  const tags = ['admin']
  const security = bearer

  app.post(
    '/v1/admin/collection-schemas',
    {
      schema: {
        operationId: 'adminCreateCollectionSchema',
        summary:
          'Defines a collection schema: its name (its reference is the name as a slug) and typed fields',
        tags,
        security,
        body: CreateSchemaBody,
        response: {
          200: envelope(CollectionSchemaDto, 'Collection schema created'),
          ...adminErrors({
            VALIDATION_ERROR:
              'a field fails its schema, two fields share a name, a reserved name, bounds that cross, or a default that does not fit',
            SCHEMA_EXISTS: {
              when: 'a schema has this name (or reference)',
              message: 'A schema with this name already exists',
            },
          }),
        },
      },
    },
    async (req) => ok(await stores.createSchema(req.body), 'Collection schema created'),
  )

  app.patch(
    '/v1/admin/collection-schemas/:id',
    {
      schema: {
        operationId: 'adminUpdateCollectionSchema',
        summary:
          'Changes a schema’s description or fields (records are checked against them when next written)',
        tags,
        security,
        params: SchemaIdParams,
        body: UpdateSchemaBody,
        response: {
          200: envelope(CollectionSchemaDto, 'Collection schema updated'),
          ...adminErrors({ VALIDATION_ERROR: 'as for a new schema', NOT_FOUND: NO_SCHEMA }),
        },
      },
    },
    async (req) => ok(await stores.updateSchema(req.params.id, req.body), 'Collection schema updated'),
  )

  app.delete(
    '/v1/admin/collection-schemas/:id',
    {
      schema: {
        operationId: 'adminDeleteCollectionSchema',
        summary: 'Deletes a schema that holds no records',
        tags,
        security,
        params: SchemaIdParams,
        response: {
          200: envelope(EmptyObject, 'Collection schema deleted'),
          ...adminErrors({
            NOT_FOUND: NO_SCHEMA,
            SCHEMA_HAS_RECORDS: {
              when: 'the schema holds records',
              message: 'This schema holds records; delete them first',
            },
          }),
        },
      },
    },
    async (req) => ok(await stores.deleteSchema(req.params.id), 'Collection schema deleted'),
  )
}
