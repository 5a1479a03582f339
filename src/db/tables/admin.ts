// Table types of the admin module: session step-ups and the audit log.
import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

/** A session whose admin proved a second factor, until `expiresAt`. */
export interface AdminElevationsTable {
  sessionId: string
  userId: string
  /** `totp` or `email` */
  method: string
  createdAt: Timestamp
  expiresAt: Timestamp
}

/** The last admin request of an operator's session (idle sessions are revoked). */
export interface AdminSessionActivityTable {
  sessionId: string
  userId: string
  lastActiveAt: Timestamp
}

export interface AdminAuditTable {
  id: string
  actorId: string
  action: string
  targetType: string
  targetId: string
  reason: string
  requestId: string | null
  ip: string | null
  details: ColumnType<Record<string, unknown>, string | undefined, string>
  createdAt: Timestamp
}

export interface AdminTables {
  adminElevations: AdminElevationsTable
  adminAudit: AdminAuditTable
  adminSessionActivity: AdminSessionActivityTable
}
