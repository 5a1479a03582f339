// The account module: profile, tags, two-factor, sessions, people search (spec #5, #6, #36–#46).
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../config.ts'
import type { Db, Tx } from '../../db/index.ts'
import type { ReadCaches } from '../../db/read-cache.ts'
import type { Clock } from '../../platform/clock.ts'
import type { SecretBox } from '../../platform/crypto/secrets.ts'
import type { FlowService, SessionIssuer, TokenService } from '../auth/types.ts'
import type { EventService } from '../events/types.ts'
import { AccountModeration } from './moderation.ts'
import { accountRoutes } from './routes.ts'
import { AccountSecurityService, type TwoFaSetupGate } from './security.ts'
import {
  AccountService,
  type FileLookup,
  type FullUser,
  type ListedProfile,
  type ReferralHooks,
} from './service.ts'
import { twoFactorRoutes } from './two-factor-routes.ts'

export interface AccountDeps {
  db: Db
  clock: Clock
  config: Config
  secrets: SecretBox
  tokens: TokenService
  flows: FlowService
  sessions: SessionIssuer
  files: FileLookup
  provisionWallet: (tx: Tx, userId: string) => Promise<void>
  /** referral codes at sign-up (the referrals service) */
  referrals: ReferralHooks
  /** where the full-profile cache lives (absent: every read goes to the database) */
  caches?: ReadCaches
  /** domain events (`account.deleted`) */
  events: Pick<EventService, 'emit'>
  /** checked before a two-factor set-up (the admin module's passkey gate) */
  setupGate?: TwoFaSetupGate
}

/** The user summary form other records carry (built from `userSummaryJson`'s row). */
export { userSummaryForm } from './forms.ts'
/** People search text, for modules that index people. */
export { searchText } from './service.ts'
/** SQL other modules embed in their lists: user summaries and tags as JSON (summary-sql.ts). */
export {
  type TagSummaryJson,
  tagSummariesJson,
  type UserSummaryJson,
  userSummaryJson,
} from './summary-sql.ts'
/** Tag keys and the tag service, for modules that filter or label by tags. */
export { tagKey, tagService } from './tags.ts'

/** The admin role and account suspension; the admin module builds it with its session revoker. */
export function buildModeration(d: ConstructorParameters<typeof AccountModeration>[0]): AccountModeration {
  return new AccountModeration(d)
}

/** What a full profile is read from: a write to any of them empties the cached profiles. */
export const PROFILE_TABLES = ['users', 'user_tags', 'achievements', 'tags', 'files'] as const
const LISTED_PROFILE_TABLES = ['users', 'user_tags', 'achievements', 'tags'] as const

export function buildAccount(d: AccountDeps) {
  const accounts = new AccountService({
    db: d.db,
    clock: d.clock,
    files: d.files,
    provisionWallet: d.provisionWallet,
    referrals: d.referrals,
    ...(d.caches
      ? {
          profiles: d.caches.create<FullUser>('profiles', PROFILE_TABLES),
          listedProfiles: d.caches.create<ListedProfile | null>('listed profiles', LISTED_PROFILE_TABLES),
        }
      : {}),
  })
  /** password change, logout, deletion, two-factor, and codes for sensitive actions */
  const accountSecurity = new AccountSecurityService({
    db: d.db,
    clock: d.clock,
    config: d.config,
    secrets: d.secrets,
    tokens: d.tokens,
    flows: d.flows,
    accounts,
    issueSession: d.sessions.issue,
    sessions: d.sessions,
    events: d.events,
    ...(d.setupGate ? { setupGate: d.setupGate } : {}),
  })
  return { accounts, accountSecurity }
}

export async function accountHttp(
  app: FastifyInstance,
  s: ReturnType<typeof buildAccount> & { config: Config },
) {
  await app.register(accountRoutes, { accounts: s.accounts, security: s.accountSecurity, config: s.config })
  await app.register(twoFactorRoutes, { security: s.accountSecurity, config: s.config })
}
