// Collections and bookmarks (spec #26–#30). `collections` is also the escrow feature's way to
// create and update a collection's escrow and payout state.
import type { FastifyInstance } from 'fastify'
import { BookmarkService } from './bookmarks.ts'
import { collectionRoutes } from './routes.ts'
import { CollectionService } from './service.ts'

export function buildCollections(d: ConstructorParameters<typeof CollectionService>[0]) {
  const collections = new CollectionService(d)
  const bookmarks = new BookmarkService({ db: d.db, clock: d.clock, collections })
  return { collections, bookmarks }
}

export async function collectionsHttp(app: FastifyInstance, s: ReturnType<typeof buildCollections>) {
  await app.register(collectionRoutes, { collections: s.collections, bookmarks: s.bookmarks })
}
