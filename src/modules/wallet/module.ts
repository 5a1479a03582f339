// Custodial wallets, the double-entry ledger, transactions (spec #18–#20, #24, #25), and the
// chain side of settlement: the deposit watcher, coin halts and reconciliation.
import type { FeatureModule } from '../core.ts'
import { KeyStore } from '../settlement/keys.ts'
import { Halts, type SettlementReadiness } from '../settlement/reconcile/halts.ts'
import { Reconciler } from '../settlement/reconcile/job.ts'
import { DepositWatcher } from '../settlement/watcher/job.ts'
import { transactionRoutes } from '../transactions/routes.ts'
import { TransactionService } from '../transactions/service.ts'
import { Ledger } from './ledger.ts'
import { walletRoutes } from './routes.ts'
import { WalletService } from './service.ts'

/** The chain side of settlement, as other modules and the operator API use it. */
export interface SettlementChecks {
  /** the deposit watcher (its job is the only entry point of a scan) */
  watcher: DepositWatcher
  /** coins halted until an operator resumes them */
  halts: Halts
  /** the reconciliation job (`runNow` on demand) and its stored runs */
  reconciliation: Reconciler
  /** for `/ready`: the coins halted now */
  readiness(): Promise<SettlementReadiness>
}

declare module '../core.ts' {
  interface Services {
    /** the double-entry ledger (balances, transfers) */
    ledger: Ledger
    /** custodial keys and wallets */
    wallets: WalletService
    /** user-facing transaction records */
    transactions: TransactionService
    /** the deposit watcher, coin halts and reconciliation */
    settlement: SettlementChecks
  }
}

export const walletModule: FeatureModule = async ({ app, config, db, clock, log, services }) => {
  const { chain, coins, rates, secrets, database, jobs } = services
  const ledger = new Ledger({ clock })
  const keys = new KeyStore({ secrets, clock })
  const transactions = new TransactionService({ db, clock, chain, coins, rates })
  const halts = new Halts({ db, clock, log })
  const watcher = new DepositWatcher({
    database,
    chain,
    clock,
    log,
    jobs,
    ledger,
    transactions,
    halts,
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
  const reconciliation = new Reconciler({ database, chain, clock, log, jobs, halts })
  services.settlement = { watcher, halts, reconciliation, readiness: () => halts.readiness() }

  services.accounts.userCreatedHooks.push((tx, user) => wallets.onUserCreated(tx, user.id))

  // The watcher and reconciliation run as self-renewing jobs, so only worker processes do them.
  watcher.register()
  reconciliation.register()
  await watcher.start()
  await reconciliation.start()

  await app.register(walletRoutes, { wallets, config })
  await app.register(transactionRoutes, { transactions })
}
