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
  /** set by the work feature: every invite sent for the collection, oldest first */
  inviteIds: TextArray
  /** talents with a pending invite: they may see the collection even when it is private */
  inviteeIds: TextArray
  applicationIds: TextArray
  /** ids of the reviews written about the job */
  ratingIds: TextArray
  cancellationReason: Generated<string>
  /** the reason of the dispute raised on the job */
  issue: Generated<string>
  deliveryNote: Generated<string>
  deliveryAttachmentIds: TextArray
  deliveredAt: NullableTimestamp
  /** the job's inspection period in days (null: the default) */
  inspectionDays: ColumnType<number | null, number | null | undefined, number | null>
  completedAt: NullableTimestamp
  cancelledAt: NullableTimestamp
  /** how the escrow was split when a dispute ended: { creatorReleased, creatorAmount, ownerReleased, ownerAmount } */
  escrowReleased: ColumnType<unknown, string | null | undefined, string | null>
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
