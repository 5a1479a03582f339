// Table types of the accounts module (camelCase; CamelCasePlugin maps them to snake_case columns).
import type { Generated } from 'kysely'
import type { Timestamp } from '../types.ts'

export interface UserTagsTable {
  userId: string
  tagId: string
  position: Generated<number>
}

export interface AchievementsTable {
  id: string
  owner: string
  type: string
  total: Generated<string>
  value: Generated<string>
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface TwoFaSetupsTable {
  userId: string
  type: string
  /** the pending TOTP secret, sealed by the secret box */
  secret: string | null
  createdAt: Timestamp
}

/** An earlier code of an auth flow, still accepted until `expiresAt` (the newest is on the flow). */
export interface AuthFlowCodesTable {
  flowId: string
  codeHash: string
  expiresAt: Timestamp
  /** when a newer code took its place: orders the earlier codes, newest first */
  replacedAt: Timestamp
}

export interface AccountTables {
  userTags: UserTagsTable
  achievements: AchievementsTable
  twoFaSetups: TwoFaSetupsTable
  authFlowCodes: AuthFlowCodesTable
}
