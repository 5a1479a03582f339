// HTTP for bookmarks (/v1/bookmark, as the public SDK calls it). Every route needs a bearer token;
// a user's bookmarks are theirs alone.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, EmptyObject, envelope, guardedErrors, IdParams, ok } from '../../http/schemas.ts'
import {
  Bookmark,
  BookmarkListItem,
  BookmarkPage,
  CreateBookmarkBody,
  ListBookmarksQuery,
} from './schemas.ts'
import type { BookmarkService } from './service.ts'

export const bookmarkRoutes: FastifyPluginAsyncTypebox<{ bookmarks: BookmarkService }> = async (
  app,
  { bookmarks },
) => {
  const security = bearer
  const bookmarkTags = ['bookmarks']

  app.post(
    '/v1/bookmark',
    {
      schema: {
        operationId: 'createBookmark',
        summary: 'Bookmark a collection, a user, a feed entry or an invite',
        description:
          'The reference must exist and be visible to the caller (404 otherwise): a collection they may see, a live account that is public (or their own), a feed entry they may see, an invite they sent or received. Bookmarking the same reference again returns the existing bookmark.',
        tags: bookmarkTags,
        security,
        body: CreateBookmarkBody,
        response: {
          200: envelope(Bookmark, 'Bookmarked'),
          ...guardedErrors({
            NOT_FOUND: {
              when: 'the reference does not exist or is hidden from the caller',
              message: 'collection not found',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await bookmarks.add(caller(req).userId, req.body), 'Bookmarked'),
  )

  app.get(
    '/v1/bookmark',
    {
      schema: {
        operationId: 'listBookmarks',
        summary: 'The caller’s bookmarks, newest first',
        description:
          'Query: `page`, `limit` (12, max 100), `type` (`collection`, `user`, `feed`, `invite`). Each item carries what it points to under the field of its type (`collection`, also as `data`; `user`; `feed`; `invite`), or null once it is deleted or no longer visible to the caller.',
        tags: bookmarkTags,
        security,
        querystring: ListBookmarksQuery,
        response: {
          200: envelope(BookmarkPage, 'Bookmarks'),
          ...guardedErrors({ VALIDATION_ERROR: 'a query value is out of range or an unknown type' }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await bookmarks.list(caller(req).userId, req.query), 'Bookmarks'),
  )

  app.get(
    '/v1/bookmark/:id',
    {
      schema: {
        operationId: 'getBookmark',
        summary: 'One of the caller’s bookmarks',
        description:
          'The bookmark with its target as in the list (null once it is deleted or no longer visible). Someone else’s bookmark and unknown ids answer 404.',
        tags: bookmarkTags,
        security,
        params: IdParams,
        response: {
          200: envelope(BookmarkListItem, 'Bookmark'),
          ...guardedErrors({
            NOT_FOUND: { when: 'no bookmark of the caller has this id', message: 'bookmark not found' },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await bookmarks.get(caller(req).userId, req.params.id), 'Bookmark'),
  )

  app.delete(
    '/v1/bookmark/:id',
    {
      schema: {
        operationId: 'deleteBookmark',
        summary: 'Remove one of the caller’s bookmarks',
        description: 'Someone else’s bookmark answers 404.',
        tags: bookmarkTags,
        security,
        params: IdParams,
        response: {
          200: envelope(EmptyObject, 'Bookmark removed'),
          ...guardedErrors({
            NOT_FOUND: { when: 'no bookmark of the caller has this id', message: 'bookmark not found' },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      await bookmarks.remove(caller(req).userId, req.params.id)
      return ok({}, 'Bookmark removed')
    },
  )
}
