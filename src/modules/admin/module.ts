// The operator's API under /v1/admin: admins only (ADMIN_EMAILS or granted), every route but the
// session's own behind a fresh second factor, every action audited in its own transaction.
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { buildModeration } from '../account/module.ts'
import type { AccountSecurityService } from '../account/types.ts'
import type { AuthService } from '../auth/types.ts'
import type { ChatService } from '../chat/types.ts'
import type { CollectionTypeService } from '../collections/types.ts'
import type { EscrowLegOperations } from '../escrow/types.ts'
import type { FeeService } from '../fees/types.ts'
import type { PaymentService } from '../payment/types.ts'
import { buildSettlementLookup, type SettlementChecks } from '../settlement/module.ts'
import type { OutgoingSender } from '../settlement/types.ts'
import { buildWalletOperatorView } from '../wallet/module.ts'
import type { WithdrawalOperatorView } from '../withdrawals/types.ts'
import type { DisputeService, WorkOperatorView } from '../work/types.ts'
import { AdminAccess } from './access.ts'
import { AdminAudit } from './audit.ts'
import { AdminCoins } from './coins.ts'
import { AdminCollectionTypes } from './collection-types.ts'
import { AdminDeposits } from './deposits.ts'
import { AdminDetails } from './details.ts'
import { AdminDisputes } from './disputes.ts'
import { AdminFees } from './fees.ts'
import { AdminPasskeys } from './passkeys.ts'
import { AdminReconciliation } from './reconciliation.ts'
import { AdminReorgs } from './reorgs.ts'
import { adminCoinRoutes } from './routes/coins.ts'
import { adminCollectionTypeRoutes } from './routes/collection-types.ts'
import { adminDepositRoutes } from './routes/deposits.ts'
import { adminDetailRoutes } from './routes/details.ts'
import { adminDisputeRoutes } from './routes/disputes.ts'
import { adminFeeRoutes } from './routes/fees.ts'
import { adminPasskeyRoutes, adminPasskeySessionRoutes } from './routes/passkeys.ts'
import { adminPeopleRoutes } from './routes/people.ts'
import { adminReconciliationRoutes } from './routes/reconciliation.ts'
import { adminReorgRoutes } from './routes/reorgs.ts'
import { adminSessionRoutes } from './routes/session.ts'
import { adminTransferRoutes } from './routes/transfers.ts'
import { AdminSearch } from './search.ts'
import { AdminSecondFactors } from './second-factor.ts'
import { AdminStats, type StatsDeps } from './stats.ts'
import { adminStatsRoutes } from './stats-routes.ts'
import { AdminTransfers } from './transfers.ts'
import { AdminUsers } from './users.ts'

export { passkeySetupGate } from './passkey-gate.ts'
/** What an operator route of another module shares with the admin routes (routes/common.ts). */
export { actorOf, adminErrors, guardElevated, pageOf, security, tags } from './routes/common.ts'

export async function buildAdmin(d: {
  db: Db
  config: Config
  clock: Clock
  auth: AuthService
  accountSecurity: AccountSecurityService
  settlement: SettlementChecks
  coins: PaymentService
  chain: StatsDeps['chain'] & Pick<ChainAdapter, 'chainId' | 'coins' | 'isContract' | 'tokenInfo' | 'info'>
  collectionTypes: CollectionTypeService
  outgoing: OutgoingSender
  withdrawalView: WithdrawalOperatorView
  escrowLegs: EscrowLegOperations
  disputes: DisputeService
  fees: FeeService
  /** jobs and disputes as operators read them */
  workView: WorkOperatorView
  /** a disputed job's messages */
  chat: Pick<ChatService, 'collectionMessagesForOperator'>
}) {
  const { db, config, clock } = d
  /** the admin role and account suspension */
  const moderation = buildModeration({
    clock,
    adminEmails: config.adminEmails,
    revokeSessions: (tx, userId) => d.auth.revokeSessions(tx, userId),
  })
  // The configured admins that are verified already hold the stored role from the start.
  await moderation.promoteConfigured(db)

  const audit = new AdminAudit({ db, clock, moderation })
  const access = new AdminAccess({
    db,
    clock,
    ttlMs: config.adminSessionTtlMs,
    idleMs: config.adminIdleTimeoutMs,
    secondFactor: config.adminSecondFactor,
    revokeSession: (tx, userId, sessionId) => d.auth.revokeSession(tx, userId, sessionId),
    moderation,
    security: d.accountSecurity,
    audit,
  })
  const passkeys = new AdminPasskeys({
    db,
    clock,
    webauthn: config.webauthn,
    access,
    audit,
    security: d.accountSecurity,
  })
  const secondFactors = new AdminSecondFactors({
    db,
    moderation,
    access,
    audit,
    security: d.accountSecurity,
    revokeSessions: (tx, userId) => d.auth.revokeSessions(tx, userId),
  })
  const users = new AdminUsers({
    db,
    moderation,
    access,
    audit,
    revokeEveryone: (tx) => d.auth.revokeEveryone(tx),
  })
  const { halts, reconciliation } = d.settlement
  const adminReconciliation = new AdminReconciliation({ db, halts, reconciliation, coins: d.coins, audit })
  const stats = new AdminStats({ db, clock, coins: d.coins, chain: d.chain })
  const collectionTypes = new AdminCollectionTypes({ db, types: d.collectionTypes, audit })
  const transfers = new AdminTransfers({
    db,
    clock,
    chain: d.chain,
    outgoing: d.outgoing,
    withdrawals: d.withdrawalView,
    legs: d.escrowLegs,
    audit,
  })
  const coins = new AdminCoins({ db, coins: d.coins, chain: d.chain, halts, audit })
  const disputes = new AdminDisputes({ disputes: d.disputes, audit })
  const fees = new AdminFees({ fees: d.fees, audit })
  const reorgs = new AdminReorgs({
    reorgs: d.settlement.reorgs,
    decimals: (coin) => d.chain.coins.find((c) => c.reference === coin)?.decimals ?? null,
    audit,
  })
  const deposits = new AdminDeposits({
    db,
    clock,
    desk: d.settlement.deposits,
    chain: d.chain,
    moderation,
    audit,
  })
  // The global search and the console's detail pages read through each owning module's operator view.
  const lookup = buildSettlementLookup({ db, chainId: d.chain.chainId })
  const search = new AdminSearch({
    db,
    chain: d.chain,
    moderation,
    settlement: lookup,
    withdrawals: d.withdrawalView,
    escrow: d.escrowLegs,
    work: d.workView,
  })
  const details = new AdminDetails({
    db,
    chain: d.chain,
    moderation,
    auth: d.auth,
    wallet: buildWalletOperatorView({ db }),
    settlement: lookup,
    escrow: d.escrowLegs,
    work: d.workView,
    chat: d.chat,
    transfers,
  })
  return {
    moderation,
    admin: {
      search,
      details,
      deposits,
      access,
      audit,
      users,
      passkeys,
      secondFactors,
      reconciliation: adminReconciliation,
      stats,
      collectionTypes,
      transfers,
      coins,
      disputes,
      fees,
      reorgs,
    },
  }
}

export async function adminHttp(
  app: FastifyInstance,
  s: Awaited<ReturnType<typeof buildAdmin>> & { db: Db },
) {
  const { access, audit, users, reconciliation } = s.admin
  await app.register(adminSessionRoutes, { access })
  await app.register(adminPasskeySessionRoutes, { access, passkeys: s.admin.passkeys })
  await app.register(adminPasskeyRoutes, {
    access,
    passkeys: s.admin.passkeys,
    secondFactors: s.admin.secondFactors,
  })
  await app.register(adminPeopleRoutes, { access, audit, users })
  await app.register(adminReconciliationRoutes, { access, reconciliation })
  await app.register(adminReorgRoutes, { access, reorgs: s.admin.reorgs })
  await app.register(adminTransferRoutes, { access, transfers: s.admin.transfers })
  await app.register(adminCoinRoutes, { access, coins: s.admin.coins })
  await app.register(adminDisputeRoutes, { access, disputes: s.admin.disputes })
  await app.register(adminFeeRoutes, { access, fees: s.admin.fees, db: s.db })
  // The operator console's dashboard and plots (read-only aggregates).
  await app.register(adminStatsRoutes, { access, stats: s.admin.stats })
  await app.register(adminCollectionTypeRoutes, { access, types: s.admin.collectionTypes })
  await app.register(adminDepositRoutes, { access, deposits: s.admin.deposits })
  await app.register(adminDetailRoutes, {
    access,
    search: s.admin.search,
    details: s.admin.details,
    transfers: s.admin.transfers,
  })
}
