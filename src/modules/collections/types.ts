// What other modules may name of collections: its services' types, the job record work and
// escrow act on, and the schemas (with their examples) that their routes and responses embed.
// Behaviour (inspection dates, fee text, change details) is reached through module.ts.
export {
  CollectionTypePage,
  CollectionTypeSchema,
  TYPE_VALUE_PATTERN,
} from './collection-type-schemas.ts'
export type { CollectionTypeService } from './collection-types.ts'
export {
  CreateCollectionBody,
  UpdateCollectionBody,
  type UpdateCollectionBodyT,
  UpdateManyCollectionsBody,
  type UpdateManyItem,
} from './input-schemas.ts'
export type { CollectionJobs, CollectionRef, JobRow, PersonSummary } from './jobs.ts'
export type { CollectionReferences } from './references.ts'
export { BOOKMARK, BOOKMARK_ITEM, USER_SUMMARY } from './schema-examples.ts'
export { Collection, CollectionUpdateShape, fullFields, StrArray, UserSummary } from './schemas.ts'
export type { CollectionService, PayoutKind } from './service.ts'
