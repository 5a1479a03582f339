// Table types of the collections module (camelCase; CamelCasePlugin maps them to snake_case columns).
import type { ColumnType, Generated } from 'kysely'
import type { Json, NullableTimestamp, Timestamp } from '../types.ts'

type TextArray = ColumnType<string[], string[] | undefined, string[]>

export interface CollectionsTable {
  id: string
  creatorId: string
  /** set by the escrow feature: the user the escrow pays out to */
  receiverId: string | null
  escrowId: string | null
  /** ids of the creator's uploaded files attached to the collection */
  attachmentIds: ColumnType<string[], string[] | undefined, string[]>
  /** null (no escrow), waiting, paid, released or cancelled */
  escrowStatus: string | null
  escrowPaid: Generated<boolean>
  isFundingRequest: Generated<boolean>
  parentId: string | null
  isParentFunded: Generated<boolean>
  type: string
  name: string
  category: Generated<string>
  description: Generated<string>
  equity: Generated<string>
  slug: string
  /** USD, two decimals, NUMERIC(14,2): read as a string */
  paymentFee: ColumnType<string, string | undefined, string>
  isPrivate: Generated<boolean>
  deliveryDate: NullableTimestamp
  tagsData: TextArray
  tagIds: TextArray
  tagKeys: TextArray
  meta: Json
  status: Generated<string>
  payoutStatus: Generated<string>
  feePayoutStatus: Generated<string>
  platformFeePayoutStatus: Generated<string>
  failedPayoutCount: Generated<number>
  failedFeePayoutCount: Generated<number>
  failedPlatformFeePayoutCount: Generated<number>
  payoutTransactions: TextArray
  inviteAccepted: Generated<boolean>
  recipientCompletedJob: Generated<boolean>
  score: Generated<number>
  progress: Generated<number>
  totalChildCollectionsCount: Generated<number>
  totalChildCollectionEscrowCount: Generated<number>
  /** lower-cased name, description and tags; the generated tsvector column indexes it */
  searchText: string
  isDeleted: Generated<boolean>
  deletedAt: NullableTimestamp
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface CollectionTables {
  collections: CollectionsTable
}
