// Table types for Kysely, camelCase (CamelCasePlugin maps them to snake_case columns). Each
// module's migrations and types live side by side: a new table is added here with its migration.
import type { ColumnType, Generated } from 'kysely'
import type { AccountTables } from './tables/accounts.ts'
import type { AdminTables } from './tables/admin.ts'
import type { AdminPasskeyTables } from './tables/admin-passkeys.ts'
import type { ChainTables } from './tables/chain.ts'
import type { CollectionStoreTables } from './tables/collection-stores.ts'
import type { CollectionTables } from './tables/collections.ts'
import type { ConnectionFilterTables } from './tables/connection-filters.ts'
import type { EscrowTables } from './tables/escrow.ts'
import type { EventTables } from './tables/events.ts'
import type { FeeTables } from './tables/fees.ts'
import type { FilesTables } from './tables/files.ts'
import type { LedgerTables } from './tables/ledger.ts'
import type { LiveTables } from './tables/live.ts'
import type { OidcTables } from './tables/oidc.ts'
import type { OutgoingTables } from './tables/outgoing.ts'
import type { ReorgTables } from './tables/reorgs.ts'
import type { ReserveTables } from './tables/reserves.ts'
import type { RestoreTables } from './tables/restore.ts'
import type { SocialTables } from './tables/social.ts'
import type { VerificationTables } from './tables/verification.ts'
import type { WalletTables } from './tables/wallet.ts'
import type { WebhookTables } from './tables/webhooks.ts'
import type { WithdrawalTables } from './tables/withdrawals.ts'
import type { WorkTables } from './tables/work.ts'

export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>
export type Json<T = any> = ColumnType<T, string | undefined, string>

export interface UsersTable {
  id: string
  email: string | null
  firstName: Generated<string>
  lastName: Generated<string>
  passwordHash: string | null
  status: Generated<boolean>
  emailVerified: Generated<boolean>
  emailVerifiedAt: NullableTimestamp
  role: Generated<string>
  type: Generated<string>
  profile: Json
  verified: Generated<boolean>
  isPrivate: Generated<boolean>
  walletGenerated: Generated<boolean>
  score: Generated<number>
  twoFaType: Generated<string>
  twoFaEnabled: Generated<boolean>
  twoFaSecret: string | null
  twoFaLastStep: number | null
  securityQuestion: Generated<string>
  profileCompleteness: Generated<number>
  socketStatus: Generated<string>
  loggedInAt: NullableTimestamp
  userName: string
  isUserNameUpdated: Generated<boolean>
  referralCode: string
  referredBy: string | null
  web3Onboard: Generated<boolean>
  web3Address: string | null
  accountType: Generated<string>
  bgImageId: string | null
  profileImageId: string | null
  meta: Json
  socials: Json
  kyc: Generated<boolean>
  kycStatus: string | null
  searchText: Generated<string>
  /** the keys of the account's tags, in order (the people search's tag filter) */
  tagKeys: ColumnType<string[], string[] | undefined, string[]>
  deletedAt: NullableTimestamp
  /** set while an operator has suspended the account */
  suspendedAt: NullableTimestamp
  suspendedReason: string | null
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface SessionsTable {
  id: string
  userId: string
  ip: string | null
  userAgent: string | null
  createdAt: Timestamp
  revokedAt: NullableTimestamp
}

export interface AuthFlowsTable {
  id: string
  purpose: string
  userId: string | null
  email: string | null
  address: string | null
  nonce: string | null
  message: string | null
  codeHash: string | null
  attempts: Generated<number>
  validatedAt: NullableTimestamp
  consumedAt: NullableTimestamp
  deadAt: NullableTimestamp
  expiresAt: Timestamp
  createdAt: Timestamp
}

export interface MailsTable {
  id: string
  toAddress: string
  subject: string
  text: string
  html: string
  kind: string
  createdAt: Timestamp
}

export interface JobsTable {
  id: string
  kind: string
  payload: Json
  status: Generated<string>
  runAt: Timestamp
  attempts: Generated<number>
  maxAttempts: Generated<number>
  lockedUntil: NullableTimestamp
  lastError: string | null
  dedupeKey: string | null
  createdAt: Timestamp
  updatedAt: Timestamp
}

export interface IdempotencyKeysTable {
  userId: string
  key: string
  route: string
  requestHash: string
  statusCode: number | null
  response: Json | null
  /** the claimant's token; renewals and the answer are written only under it */
  claim: Generated<string>
  /** the last renewal of the claim's lease */
  createdAt: Timestamp
}

export interface AuditLogTable {
  id: string
  userId: string | null
  action: string
  ip: string | null
  meta: Json
  createdAt: Timestamp
}

export interface TagsTable {
  id: string
  name: string
  key: string
  color: string
  description: Generated<string>
  icon: Generated<string>
  categories: ColumnType<string[], string[] | undefined, string[]>
  isParent: Generated<boolean>
  type: Generated<string>
  entryCount: Generated<number>
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface BookmarksTable {
  id: string
  userId: string
  type: 'collection' | 'user' | 'feed' | 'invite'
  reference: string
  createdAt: Timestamp
}

export interface DB
  extends AccountTables,
    AdminTables,
    AdminPasskeyTables,
    ChainTables,
    WalletTables,
    LedgerTables,
    FilesTables,
    CollectionTables,
    WithdrawalTables,
    OutgoingTables,
    EscrowTables,
    EventTables,
    FeeTables,
    WorkTables,
    LiveTables,
    SocialTables,
    WebhookTables,
    ReorgTables,
    RestoreTables,
    ReserveTables,
    ConnectionFilterTables,
    CollectionStoreTables,
    OidcTables,
    VerificationTables {
  tags: TagsTable
  bookmarks: BookmarksTable
  users: UsersTable
  sessions: SessionsTable
  authFlows: AuthFlowsTable
  mails: MailsTable
  jobs: JobsTable
  idempotencyKeys: IdempotencyKeysTable
  auditLog: AuditLogTable
}
