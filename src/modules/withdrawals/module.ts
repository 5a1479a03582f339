// Withdrawals to outside addresses (spec #22, #23): requests become settlement intents.
import type { FeatureModule } from '../core.ts'
import { withdrawalRoutes } from './routes.ts'
import { WithdrawalService } from './service.ts'

declare module '../core.ts' {
  interface Services {
    withdrawals: WithdrawalService
  }
}

export const withdrawalsModule: FeatureModule = async ({ app, config, db, clock, log, services }) => {
  const { chain, jobs, ledger, wallets, transactions, coins, outgoing } = services
  const withdrawals = new WithdrawalService({
    db,
    clock,
    log,
    config,
    coins,
    ledger,
    wallets,
    transactions,
    outgoing,
    chain,
    jobs,
    verifySensitiveCode: (userId, code, then) =>
      services.accountSecurity.verifySensitiveCode(userId, code, then),
  })
  services.withdrawals = withdrawals
  await app.register(withdrawalRoutes, { withdrawals, db })
}
