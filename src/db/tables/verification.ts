// Table types of identity verification (sessions and the images sent for them).
import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>

export type VerificationStatus =
  | 'created'
  | 'submitted'
  | 'review'
  | 'approved'
  | 'declined'
  | 'resubmission_requested'
  | 'expired'
  | 'abandoned'

export type MediaContext = 'face' | 'document-front' | 'document-back'

export interface IdentityVerificationsTable {
  id: string
  userId: string
  provider: 'operator' | 'veriff'
  status: VerificationStatus
  providerSessionId: string
  sessionToken: string
  sessionUrl: string
  firstName: string
  lastName: string
  gender: string
  country: string
  fullAddress: string
  documentType: string
  documentNumber: string
  dateOfBirth: string
  reason: Generated<string>
  reasonCode: number | null
  decidedBy: string | null
  decidedAt: NullableTimestamp
  /** the provider's decision as received (Veriff's webhook body) */
  decision: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>
  documentValidFrom: string | null
  documentValidUntil: string | null
  deletedAt: NullableTimestamp
  createdAt: Timestamp
  updatedAt: Timestamp
}

export interface IdentityVerificationMediaTable {
  id: string
  verificationId: string
  context: MediaContext
  /** a private file of the files module */
  fileId: string
  name: string
  mimeType: string
  size: number
  createdAt: Timestamp
}

export interface VerificationTables {
  identityVerifications: IdentityVerificationsTable
  identityVerificationMedia: IdentityVerificationMediaTable
}
