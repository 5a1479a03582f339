// Collections (spec #26–#30) and collection types. `collections` is also the
// escrow feature's way to create and update a collection's escrow and payout state.
import type { FastifyInstance } from 'fastify'
import type { ReadCaches } from '../../db/read-cache.ts'
import { collectionTypeRoutes } from './collection-type-routes.ts'
import { CollectionTypeService } from './collection-types.ts'
import { COLLECTION_TABLES, type CollectionForm } from './reads.ts'
import { CollectionReferences } from './references.ts'
import { collectionRoutes } from './routes.ts'
import { CollectionService } from './service.ts'

/** What work computes by collections' rules: the inspection window, the fee's text, a change's detail. */
export { autoCompleteAt, inspectionDays } from './inspection.ts'
export { changedDetail } from './jobs.ts'
export { paymentFeeText } from './payment-fee.ts'
/** The job's state machine (states.ts): work checks every step of a job against it. */
export {
  type Action,
  checkTransition,
  DELIVERABLE_STATUSES,
  type DeliverableStatus,
  FINAL_PHASES,
  type JobStatus,
  type Party,
  type Phase,
  phaseOf,
  REVIEWABLE_PHASES,
  storedAs,
  TRANSITIONS,
  type Transition,
} from './states.ts'

export function buildCollections(
  d: Omit<ConstructorParameters<typeof CollectionService>[0], 'types' | 'cache'> & {
    /** where the one-collection cache lives (absent: every read goes to the database) */
    caches?: ReadCaches
  },
) {
  const { caches, ...rest } = d
  const collectionTypes = new CollectionTypeService({
    db: d.db,
    clock: d.clock,
    ...(caches ? { cache: caches.create<string>('collection types', ['collection_types']) } : {}),
  })
  const collections = new CollectionService({
    ...rest,
    types: collectionTypes,
    ...(caches ? { cache: caches.create<CollectionForm>('collections', COLLECTION_TABLES) } : {}),
  })
  return { collections, collectionTypes, collectionReferences: new CollectionReferences(collections) }
}

export async function collectionsHttp(
  app: FastifyInstance,
  s: Pick<ReturnType<typeof buildCollections>, 'collections' | 'collectionTypes'>,
) {
  await app.register(collectionRoutes, { collections: s.collections })
  await app.register(collectionTypeRoutes, { types: s.collectionTypes })
}
