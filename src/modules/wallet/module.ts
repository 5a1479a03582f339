// Custodial wallets, the double-entry ledger, the deposit watcher and transactions (spec #18–#20,
// #24, #25).
import type { FeatureModule } from '../core.ts'
import { KeyStore } from '../settlement/keys.ts'
import { transactionRoutes } from '../transactions/routes.ts'
import { TransactionService } from '../transactions/service.ts'
import { Ledger } from './ledger.ts'
import { walletRoutes } from './routes.ts'
import { WalletService } from './service.ts'
import { DepositWatcher } from './watcher.ts'

declare module '../core.ts' {
  interface Services {
    /** the double-entry ledger (balances, transfers) */
    ledger: Ledger
    /** custodial keys, wallets, the deposit watcher and its hooks */
    wallets: WalletService
    /** user-facing transaction records */
    transactions: TransactionService
  }
}

/** How often a worker polls the chain for new blocks. */
export const WATCH_INTERVAL_MS = 2000
const WATCH_JOB = 'wallet.watch'

export const walletModule: FeatureModule = async ({ app, config, db, clock, log, services }) => {
  const { chain, coins, rates, secrets, database, jobs } = services
  const ledger = new Ledger({ clock })
  const keys = new KeyStore({ secrets, clock })
  const transactions = new TransactionService({ db, clock, chain, coins, rates })
  const watcher = new DepositWatcher({
    database,
    chain,
    clock,
    log,
    keys,
    ledger,
    transactions,
    confirmations: config.confirmations,
  })
  const wallets = new WalletService({
    db,
    clock,
    log,
    chain,
    coins,
    rates,
    keys,
    ledger,
    watcher,
    verifySensitiveCode: (userId, code, then) =>
      services.accountSecurity.verifySensitiveCode(userId, code, then),
  })
  services.ledger = ledger
  services.wallets = wallets
  services.transactions = transactions

  services.accounts.userCreatedHooks.push((tx, user) => wallets.onUserCreated(tx, user.id))

  // The watcher runs as a self-renewing job, so only worker processes poll the chain. Each run
  // schedules the next in the following time slot; the slot in the dedupe key collapses the
  // renewals of several workers (or restarts) into one.
  const slot = (t: number) => Math.floor(t / WATCH_INTERVAL_MS)
  const schedule = async (at: number) => {
    await jobs.enqueue(
      db,
      WATCH_JOB,
      { chainId: chain.chainId },
      {
        runAt: new Date(slot(at) * WATCH_INTERVAL_MS),
        dedupeKey: `${WATCH_JOB}:${chain.chainId}:${slot(at)}`,
      },
    )
  }
  jobs.register(
    WATCH_JOB,
    async () => {
      try {
        await watcher.scanNow()
      } catch (err) {
        log.warn({ err: err instanceof Error ? err.message : String(err) }, 'deposit watcher pass failed')
      } finally {
        await schedule(clock.now().getTime() + WATCH_INTERVAL_MS)
      }
    },
    // A scan's own failure is caught above; the queue's retries only cover a renewal that failed
    // (database unreachable) or a run that died. A job that failed for good would end the chain
    // of runs, and nothing would credit deposits until a restart: a high limit, as for the sender.
    { maxAttempts: 1000, deleteOnSuccess: true },
  )

  try {
    await transactions.chainRecordId()
    await watcher.initCursor()
    await schedule(clock.now().getTime())
  } catch (err) {
    // The chain or database may be briefly unreachable at start-up; the first scan retries.
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'deposit watcher not initialised')
  }

  await app.register(walletRoutes, { wallets, config })
  await app.register(transactionRoutes, { transactions })
}
