// Table types of the work module (camelCase; CamelCasePlugin maps them to snake_case columns).
import type { ColumnType, Generated } from 'kysely'
import type { NullableTimestamp, Timestamp } from '../types.ts'

type NullableCents = ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>

export type InviteStatus = 'pending' | 'accepted' | 'rejected' | 'cancelled' | 'expired'
export type ApplicationStatus = 'pending' | 'accepted' | 'rejected' | 'expired'
export type DisputeStatus = 'open' | 'settling' | 'settled'

export interface InvitesTable {
  id: string
  collectionId: string
  senderId: string
  receiverId: string
  message: Generated<string>
  status: Generated<InviteStatus>
  acceptedAt: NullableTimestamp
  /** when it stopped being pending other than by acceptance (declined, cancelled, expired) */
  closedAt: NullableTimestamp
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface ApplicationsTable {
  id: string
  collectionId: string
  applicantId: string
  message: string
  /** the price asked, USD cents; null when the job's own price is accepted */
  amountCents: NullableCents
  status: Generated<ApplicationStatus>
  decidedAt: NullableTimestamp
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface ReviewsTable {
  id: string
  collectionId: string
  ownerId: string
  receiverId: string
  /** who was reviewed: `talent` (written by the creator) or `creator` (written by the talent) */
  type: 'talent' | 'creator'
  rating: number
  review: string
  isPrivate: Generated<boolean>
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface DisputesTable {
  id: string
  collectionId: string
  escrowId: string
  raisedBy: string
  reason: string
  evidenceIds: ColumnType<string[], string[] | undefined, string[]>
  status: Generated<DisputeStatus>
  proposedBy: string | null
  proposedCreatorCents: NullableCents
  proposedOwnerCents: NullableCents
  proposedAt: NullableTimestamp
  resolution: 'agreement' | 'arbiter' | null
  creatorCents: NullableCents
  ownerCents: NullableCents
  decidedBy: string | null
  note: Generated<string>
  resolvedAt: NullableTimestamp
  paidAt: NullableTimestamp
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface WorkTables {
  invites: InvitesTable
  applications: ApplicationsTable
  reviews: ReviewsTable
  disputes: DisputesTable
}
