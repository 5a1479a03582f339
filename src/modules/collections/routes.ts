// HTTP for collections (spec #26–#28, #30). Every route needs a bearer token: privacy and
// `isBookmarked` depend on who asks. The update (#29), which also moves a job through its
// states, is the work feature's (work/routes-jobs.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, EmptyObject, envelope, guardedErrors, IdParams, ok } from '../../http/schemas.ts'
import { CreateCollectionBody, ListCollectionsQuery } from './input-schemas.ts'
import { Collection, CollectionPage } from './schemas.ts'
import type { CollectionService } from './service.ts'

export const collectionRoutes: FastifyPluginAsyncTypebox<{
  collections: CollectionService
}> = async (app, { collections }) => {
  const tags = ['collections']
  const security = bearer
  const HIDDEN = {
    when: 'no such collection, a deleted one, or someone else’s private one',
    message: 'collection not found',
  }

  app.post(
    '/v1/collection',
    {
      schema: {
        operationId: 'createCollection',
        summary: 'Create a collection (#26)',
        description:
          'Required: `type`, `name`, `description`. `paymentFee` is USD, 0 to 999999999999.99 with at most two decimals, as a decimal string or a JSON number (a number that is not exactly a cent amount, e.g. 0.1 + 0.2, is 400; default `0`; answered as a number); `deliveryDate` is `YYYY-MM-DD`, today or later (UTC); `meta` is at most 4 KiB as JSON. `parent` puts the new collection under one of the caller’s own top-level collections (404 when unknown or hidden, 403 when someone else’s, 422 when the parent is itself a child). `paymentWebHook` (an https URL; http://localhost outside production) is called with signed JSON when the collection’s payment moves; this answer carries its `paymentWebHookSecret`, shown once (docs/webhooks.md).',
        tags,
        security,
        body: CreateCollectionBody,
        response: {
          200: envelope(Collection, 'Collection created'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'a field fails its schema, a blank name or description, a paymentFee that is not a cent amount, a past deliveryDate, `meta` over 4 KiB, an attachment that is not one of your files, or a paymentWebHook that is not an https URL on the public internet',
            FORBIDDEN: {
              when: '`parent` is someone else’s collection',
              message: 'Child collections can only be added under your own collections',
            },
            NOT_FOUND: {
              when: '`parent` does not exist or is hidden',
              message: 'parent collection not found',
            },
            COLLECTION_NESTING_TOO_DEEP: {
              when: '`parent` is itself a child collection',
              message: 'A child collection cannot have children of its own',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await collections.create(caller(req).userId, req.body), 'Collection created'),
  )

  app.get(
    '/v1/collection',
    {
      schema: {
        operationId: 'listCollections',
        summary: 'List collections (#27)',
        description:
          'Newest first. Lists public collections and the private ones the caller created, is the assigned talent of (the escrow receiver) or holds a pending invite to; never deleted ones. `search` matches every word as a prefix, case-insensitively, in the name, description and tag names. `tags` matches collections with any of the comma-separated tag keys. `price` is `min-max` in USD (`100-`, `-500`). `creator=false` gives the creator’s id instead of the summary; `receiver=true` adds the escrow receiver’s summary. `collections` holds the ids of the visible children.',
        tags,
        security,
        querystring: ListCollectionsQuery,
        response: {
          200: envelope(CollectionPage, 'Collections'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'an unknown or malformed query parameter, a `price` that is not `min-max`, or more filter tags than allowed',
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await collections.list(caller(req).userId, req.query), 'Collections'),
  )

  app.get(
    '/v1/collection/:id',
    {
      schema: {
        operationId: 'getCollection',
        summary: 'Get one collection with its child collections (#30)',
        description:
          'Someone else’s private collection and deleted ones answer 404; a private job is visible to its assigned talent and to talents with a pending invite to it.',
        tags,
        security,
        params: IdParams,
        response: { 200: envelope(Collection, 'Collection'), ...guardedErrors({ NOT_FOUND: HIDDEN }) },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await collections.get(req.params.id, caller(req).userId), 'Collection'),
  )

  app.delete(
    '/v1/collection/:id',
    {
      schema: {
        operationId: 'deleteCollection',
        summary: 'Delete a collection and its children (#28)',
        description:
          'Creator only. A soft delete: the collection and its children disappear from every read, their tag counts and bookmarks go with them. Refused with 409 while a paid escrow on any of them is not released.',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(EmptyObject, 'Collection deleted'),
          ...guardedErrors({
            FORBIDDEN: {
              when: 'the caller is not the creator',
              message: 'Only the creator may change this collection',
            },
            NOT_FOUND: HIDDEN,
            COLLECTION_ESCROW_UNRELEASED: {
              when: 'a paid escrow on it or on a child is not released',
              message: 'A paid escrow on this collection has not been released yet',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      await collections.remove(req.params.id, caller(req).userId)
      return ok({}, 'Collection deleted')
    },
  )
}
