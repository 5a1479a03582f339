// The composition root: every service of the product, built once, in dependency order, each with
// what it needs passed in. Nothing is attached to a service after it is built; a module that needs
// another is built after it (a cycle is broken by passing a small interface or a function of a
// service built earlier). Job handlers are registered as their modules are built, so a worker
// process runs them without building the HTTP app (src/main.ts `worker`).
import { listenReadCaches } from './db/read-cache.ts'
import { assertHandled } from './handlers-check.ts'
import { buildAccount } from './modules/account/module.ts'
import { buildAdmin, passkeySetupGate } from './modules/admin/module.ts'
import { buildGoogle } from './modules/auth/google-module.ts'
import { buildAuth, buildAuthBase } from './modules/auth/module.ts'
import { startSessionCache } from './modules/auth/session-cache.ts'
import { buildWeb3 } from './modules/auth/web3-module.ts'
import { buildBookmarks } from './modules/bookmarks/module.ts'
import { buildChat } from './modules/chat/module.ts'
import { buildCollections } from './modules/collections/module.ts'
import { buildConnectionFilters } from './modules/connections/module.ts'
import { buildEscrow } from './modules/escrow/module.ts'
import { buildEvents } from './modules/events/module.ts'
import { buildFeeds } from './modules/feeds/module.ts'
import { buildFees } from './modules/fees/module.ts'
import { buildFiles } from './modules/files/module.ts'
import { buildLedger } from './modules/ledger/module.ts'
import { buildLive } from './modules/live/module.ts'
import { publishLive } from './modules/live/publish.ts'
import { buildNotifications } from './modules/notifications/module.ts'
import { buildPayment } from './modules/payment/module.ts'
import { buildReferrals } from './modules/referrals/module.ts'
import { buildReserves } from './modules/reserves/module.ts'
import { buildRestore } from './modules/restore/module.ts'
import { chainHistory } from './modules/settlement/chain-history.ts'
import { buildChainWatch, buildKeys, buildOutgoing } from './modules/settlement/module.ts'
import { buildStores } from './modules/stores/module.ts'
import { buildTransactions } from './modules/transactions/module.ts'
import { buildVerification, buildVerificationReview } from './modules/verification/module.ts'
import { buildProvisioner, buildWallet } from './modules/wallet/module.ts'
import { buildWebhooks } from './modules/webhooks/module.ts'
import { buildWithdrawals } from './modules/withdrawals/module.ts'
import { buildWork } from './modules/work/module.ts'
import { buildPlatform, type RootDeps } from './platform-root.ts'

/**
 * Builds every service. `close` releases what the services opened (the chain, the object store
 * client); the caller stops the job runner first and closes the mailer and database after.
 */
export async function buildServices(deps: RootDeps) {
  const closers: (() => Promise<void>)[] = []
  const close = async () => {
    for (const fn of closers.splice(0).reverse()) await fn()
  }
  try {
    const platform = await buildPlatform(deps)
    const { config, database, db, clock, log, jobs, secrets } = platform

    const { events } = buildEvents({ clock })
    const { notifications } = buildNotifications({ db, clock, jobs, events, publishLive })
    // Production: https only, public addresses only (checked at every call), 10 s per call.
    const { webhooks, webhookDelivery } = buildWebhooks({
      db,
      clock,
      log,
      jobs,
      secrets,
      events,
      production: config.production,
      policy: { publicOnly: config.production, httpsOnly: config.production, timeoutMs: 10_000 },
    })
    // Referral sign-ups (for accounts) and first completed jobs (a subscriber of the events).
    const { referrals } = buildReferrals({ db, clock, config, jobs, events })
    // Sessions cached in process, dropped in every process by PostgreSQL notifications.
    const sessionCache = await startSessionCache(database, log)
    closers.push(sessionCache.stop)
    // Hot reads (profiles, wallet balances, one collection) cached in process, emptied by writes
    // committed here and, through notifications, by those of every other process.
    closers.push(await listenReadCaches(database.caches, database.listen, database.kind === 'postgres', log))
    const authBase = buildAuthBase({ db, config, clock, jobs, sessionCache: sessionCache.cache })
    // The embedded dev chain compacts its journal below what the settlement's readers are done with.
    const history = chainHistory(db)
    const payment = await buildPayment({ db, config, clock, log, listen: database.listen, history })
    closers.push(payment.close)
    const { chain, coins, rates } = payment
    const files = await buildFiles({ db, config, clock, log, jobs })
    closers.push(files.close)
    const { ledger } = buildLedger({ clock })
    const { keys } = buildKeys({ secrets, clock })
    const { provisioner } = buildProvisioner({ chain, keys, ledger })
    const account = buildAccount({
      ...authBase,
      db,
      clock,
      config,
      secrets,
      files: files.files,
      provisionWallet: provisioner.forNewUser,
      referrals,
      caches: database.caches,
      events,
      // (moderation is built with the admin module below; the gate asks it at request time)
      setupGate: passkeySetupGate({ db, clock, staffRole: (ex, id) => moderation.staffRole(ex, id) }),
    })
    const { accounts, accountSecurity } = account
    const verifySensitiveCode: typeof accountSecurity.verifySensitiveCode = (userId, code, then) =>
      accountSecurity.verifySensitiveCode(userId, code, then)
    const confirmPassword: typeof accountSecurity.confirmPassword = (...args) =>
      accountSecurity.confirmPassword(...args)
    const { auth } = buildAuth({
      ...authBase,
      db,
      config,
      clock,
      accounts,
      twoFaLogin: accountSecurity.login.start,
    })
    const { web3 } = buildWeb3({ db, config, clock, log, flows: authBase.flows, auth, accounts, chain })
    const { google } = buildGoogle({ db, config, clock, log, auth, accounts })
    const { transactions, transactionStats } = buildTransactions({ db, clock, chain, coins, rates })
    const { settlement } = await buildChainWatch({
      config,
      database,
      chain,
      clock,
      log,
      jobs,
      ledger,
      transactions,
      events,
      coins,
    })
    // Settlement signs with its own keys and registers what it signs with its own watcher.
    const { outgoing } = buildOutgoing({
      database,
      chain,
      clock,
      log,
      jobs,
      ledger,
      keys,
      settlement,
      crashHook: deps.crashHook,
    })
    // The wallet views: a read model over the ledger and settlement's keys, built above both.
    const { wallets } = buildWallet({
      db,
      clock,
      log,
      chain,
      coins,
      rates,
      keys,
      provisioner,
      accounts,
      verifySensitiveCode,
      confirmPassword,
      caches: database.caches,
    })
    // The fee address (escrow releases pay their platform fee there) and sweeps to a cold address.
    const { fees } = await buildFees({
      db,
      config,
      clock,
      log,
      chain,
      coins,
      ledger,
      keys,
      outgoing,
      settlement,
    })
    const { collections, collectionTypes, collectionReferences } = buildCollections({
      db,
      clock,
      files: files.files,
      events,
      hooks: webhooks.collectionHooks,
      caches: database.caches,
    })
    // Identity verification: before withdrawals, which ask it whether an amount needs a verified identity.
    const { verification, identityRequirement, veriffWebhook } = buildVerification({
      db,
      clock,
      log,
      config,
      files: files.files,
      accounts,
      events,
      jobs,
    })
    const { withdrawals, withdrawalView } = buildWithdrawals({
      db,
      clock,
      log,
      config,
      coins,
      ledger,
      keys,
      transactions,
      outgoing,
      chain,
      jobs,
      events,
      verifySensitiveCode,
      confirmPassword,
      halts: settlement.halts,
      identity: identityRequirement,
    })
    const { escrow, payments, escrowLegs, deposits } = buildEscrow({
      db,
      clock,
      log,
      chain,
      coins,
      ledger,
      keys,
      collections,
      transactions,
      events,
      jobs,
      outgoing,
      settlement,
      verifySensitiveCode,
      confirmPassword,
      platformFeePercent: config.platformFeePercent,
      platformFeeAddress: fees.feeAddress,
    })
    const { connectionFilters } = buildConnectionFilters({
      db,
      clock,
      people: accounts,
      caches: database.caches,
    })
    const { stores } = buildStores({ db, clock })
    const { work } = buildWork({
      db,
      clock,
      jobs,
      collections,
      escrow,
      files: files.files,
      accounts,
      events,
      connections: connectionFilters,
    })
    const { feeds } = buildFeeds({ db, clock, events, people: collections.jobs })
    const { bookmarks } = buildBookmarks({
      db,
      clock,
      collections: collectionReferences,
      feeds,
      invites: work.invites,
    })
    const { live } = buildLive({
      database,
      log,
      events,
      authenticate: (token) => auth.authenticate(token),
      options: { maxSocketsPerUser: config.rateLimit.liveSocketsPerUser },
    })
    const { chat } = buildChat({
      db,
      clock,
      live,
      files: files.files,
      collections: { get: (ex, id) => collections.jobs.get(ex, id) },
      connections: connectionFilters,
    })
    const { moderation, admin } = await buildAdmin({
      db,
      config,
      clock,
      auth,
      accountSecurity,
      settlement,
      coins,
      chain,
      collectionTypes,
      outgoing,
      withdrawalView,
      escrowLegs,
      disputes: work.disputes,
      fees,
      workView: work.operator,
      chat,
    })
    // Proof of reserves: snapshots of the ledger and the chain at one block, scheduled and on request.
    const { reserves } = await buildReserves({
      db,
      config,
      chain,
      clock,
      log,
      jobs,
      secrets,
      ledger,
      keys,
      escrowParties: (ex, ids) => escrow.parties(ex, ids),
      cursor: (ex) => settlement.watcher.cursor(ex),
      audit: admin.audit,
    })

    // The operators' review of identity verifications, audited like every admin action.
    const { verificationReview } = buildVerificationReview({
      db,
      verification,
      audit: admin.audit,
      emails: (ids) => moderation.emails(db, ids),
    })

    // Restores: restore mode and the platform's own transactions a restored database did not know.
    const { restore } = buildRestore({
      db,
      config,
      chain,
      clock,
      log,
      auth,
      outgoing,
      withdrawals,
      transactions,
    })

    // Every job kind and transfer purpose has its one handler, or the process does not start.
    assertHandled(jobs, outgoing)

    const services = {
      ...platform,
      events,
      notifications,
      feeds,
      webhooks,
      webhookDelivery,
      referrals,
      ...authBase,
      auth,
      accounts,
      accountSecurity,
      web3,
      google,
      chain,
      coins,
      rates,
      files: files.files,
      ledger,
      keys,
      wallets,
      transactions,
      transactionStats,
      settlement,
      outgoing,
      fees,
      collections,
      bookmarks,
      collectionTypes,
      withdrawals,
      escrow,
      payments,
      deposits,
      work,
      live,
      chat,
      connectionFilters,
      stores,
      moderation,
      admin,
      reserves,
      restore,
      verification,
      identityRequirement,
      veriffWebhook,
      verificationReview,
    }
    return { services, close }
  } catch (err) {
    await close().catch(() => {})
    throw err
  }
}

/** Every service of the product, by name (also `app.services`). */
export type Services = Awaited<ReturnType<typeof buildServices>>['services']
