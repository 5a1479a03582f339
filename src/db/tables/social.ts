// Table types of collection types and referrals.
import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>

export interface CollectionTypesTable {
  id: string
  name: string
  value: string
  description: Generated<string>
  createdAt: Timestamp
  updatedAt: Timestamp
  /** set when an admin retired the type: no new collection may use it */
  deletedAt: NullableTimestamp
}

export interface ReferralInvitesTable {
  id: string
  /** the inviter */
  userId: string
  /** lower-cased */
  email: string
  sentCount: Generated<number>
  createdAt: Timestamp
  lastSentAt: Timestamp
}

export interface ReferralCompletionsTable {
  /** the referred account */
  userId: string
  referrerId: string
  /** its first completed collection */
  collectionId: string
  completedAt: Timestamp
}

export interface SocialTables {
  collectionTypes: CollectionTypesTable
  referralInvites: ReferralInvitesTable
  referralCompletions: ReferralCompletionsTable
}
