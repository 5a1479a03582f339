// Bookmarks of collections, users, feed entries and invites (/v1/bookmark). Built after the
// modules whose records can be bookmarked: it asks each what the caller may see.
import type { FastifyInstance } from 'fastify'
import { bookmarkRoutes } from './routes.ts'
import { type BookmarkDeps, BookmarkService } from './service.ts'

export function buildBookmarks(d: BookmarkDeps) {
  return { bookmarks: new BookmarkService(d) }
}

export async function bookmarksHttp(app: FastifyInstance, s: { bookmarks: BookmarkService }) {
  await app.register(bookmarkRoutes, { bookmarks: s.bookmarks })
}
