// Collections and bookmarks (spec #26–#30). `services.collections` is also the escrow feature's
// way to create and update a collection's escrow and payout state.
import type { FeatureModule } from '../core.ts'
import { BookmarkService } from './bookmarks.ts'
import { collectionRoutes } from './routes.ts'
import { CollectionService } from './service.ts'

declare module '../core.ts' {
  interface Services {
    collections: CollectionService
    bookmarks: BookmarkService
  }
}

export const collectionsModule: FeatureModule = async ({ app, db, clock, services }) => {
  const collections = new CollectionService({ db, clock, files: services.files })
  const bookmarks = new BookmarkService({ db, clock, collections })
  services.collections = collections
  services.bookmarks = bookmarks
  await app.register(collectionRoutes, { collections, bookmarks })
}
