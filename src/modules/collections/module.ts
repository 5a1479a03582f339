// Collections (spec #26–#30) and collection types. `collections` is also the
// escrow feature's way to create and update a collection's escrow and payout state.
import type { FastifyInstance } from 'fastify'
import { collectionTypeRoutes } from './collection-type-routes.ts'
import { CollectionTypeService } from './collection-types.ts'
import { CollectionReferences } from './references.ts'
import { collectionRoutes } from './routes.ts'
import { CollectionService } from './service.ts'

export function buildCollections(d: Omit<ConstructorParameters<typeof CollectionService>[0], 'types'>) {
  const collectionTypes = new CollectionTypeService({ db: d.db, clock: d.clock })
  const collections = new CollectionService({ ...d, types: collectionTypes })
  return { collections, collectionTypes, collectionReferences: new CollectionReferences(collections) }
}

export async function collectionsHttp(
  app: FastifyInstance,
  s: Pick<ReturnType<typeof buildCollections>, 'collections' | 'collectionTypes'>,
) {
  await app.register(collectionRoutes, { collections: s.collections })
  await app.register(collectionTypeRoutes, { types: s.collectionTypes })
}
