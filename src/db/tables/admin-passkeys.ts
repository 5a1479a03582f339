// Table types of operators' passkeys: the credentials and their single-use challenges.
import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>

export interface AdminPasskeysTable {
  /** the credential id, base64url */
  id: string
  userId: string
  name: string
  /** the COSE public key, base64url */
  publicKey: string
  /** the authenticator's signature counter (int8, read as a number) */
  counter: ColumnType<number, number | undefined, number>
  transports: ColumnType<string[], string | undefined, string>
  /** `singleDevice` or `multiDevice` (synced) */
  deviceType: string
  backedUp: boolean
  createdAt: Timestamp
  lastUsedAt: NullableTimestamp
}

export interface AdminPasskeyChallengesTable {
  /** the challenge, base64url, as the browser signs it */
  challenge: string
  purpose: 'register' | 'authenticate'
  userId: string
  sessionId: string
  createdAt: Timestamp
  expiresAt: Timestamp
  usedAt: Generated<Date | null>
}

export interface AdminPasskeyTables {
  adminPasskeys: AdminPasskeysTable
  adminPasskeyChallenges: AdminPasskeyChallengesTable
}
