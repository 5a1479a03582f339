// HTTP for feeds (/v1/feeds, as the public SDK calls them).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, envelope, guardedErrors, IdParams, ok } from '../../http/schemas.ts'
import { CreateFeedBody, EmptyData, Feed, FeedList, FeedListQuery } from './schemas.ts'
import type { FeedService } from './service.ts'

export const feedRoutes: FastifyPluginAsyncTypebox<{ feeds: FeedService }> = async (app, { feeds }) => {
  const tags = ['feeds']
  const notFound = {
    NOT_FOUND: { when: 'no entry the caller may see has this id', message: 'feed not found' },
  }

  app.get(
    '/v1/feeds/',
    {
      schema: {
        operationId: 'listFeeds',
        summary: 'The activity stream, newest first, without the entries the caller dismissed',
        description:
          'Public entries are seen by everyone, the others by the users they concern. Query: page, limit (12, max 100), type, owner, isOwner (true: only entries that concern the caller), isPublic.',
        tags,
        security: bearer,
        querystring: FeedListQuery,
        response: {
          200: envelope(FeedList, 'Feeds'),
          ...guardedErrors({ VALIDATION_ERROR: 'a query value is out of range or an unknown type' }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await feeds.list(caller(req).userId, req.query), 'Feeds'),
  )

  app.post(
    '/v1/feeds/',
    {
      schema: {
        operationId: 'createFeed',
        summary: 'Posts an entry of the caller’s own to the activity stream (the SDK’s feed.create)',
        description:
          'The caller is its `creator`. `owners` (one id or a list of live accounts, at most 20; the caller when absent) are the users it concerns: a public entry is seen by everyone, a private one by its owners and the caller only. Answers the new entry.',
        tags,
        security: bearer,
        body: CreateFeedBody,
        response: {
          200: envelope(Feed, 'Feed created'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'a field fails its schema, a blank title or description, or an owner who is not a live account',
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await feeds.create(caller(req).userId, req.body), 'Feed created'),
  )

  app.put(
    '/v1/feeds/dismiss/all',
    {
      schema: {
        operationId: 'dismissAllFeeds',
        summary: 'Dismisses every entry up to now, for the caller only',
        tags,
        security: bearer,
        response: { 200: envelope(EmptyData, 'Feeds dismissed'), ...guardedErrors() },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await feeds.dismissAll(caller(req).userId), 'Feeds dismissed'),
  )

  app.get(
    '/v1/feeds/:id',
    {
      schema: {
        operationId: 'getFeed',
        summary: 'One entry the caller may see (`closed` when they dismissed it)',
        tags,
        security: bearer,
        params: IdParams,
        response: {
          200: envelope(Feed, 'Feed'),
          ...guardedErrors({ VALIDATION_ERROR: 'the id is not a record id', ...notFound }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await feeds.get(caller(req).userId, req.params.id), 'Feed'),
  )

  app.put(
    '/v1/feeds/:id/dismiss',
    {
      schema: {
        operationId: 'dismissFeed',
        summary: 'Dismisses one entry, for the caller only',
        tags,
        security: bearer,
        params: IdParams,
        response: {
          200: envelope(Feed, 'Feed dismissed'),
          ...guardedErrors({ VALIDATION_ERROR: 'the id is not a record id', ...notFound }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await feeds.dismiss(caller(req).userId, req.params.id), 'Feed dismissed'),
  )
}
