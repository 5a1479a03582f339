// Withdrawals to outside addresses (spec #22, #23) and the outgoing transfer sender they share
// with escrow payouts (`services.outgoing`).
import type { FeatureModule } from '../core.ts'
import { withdrawalRoutes } from './routes.ts'
import { OUTGOING_JOB, OutgoingSender } from './sender.ts'
import { WithdrawalService } from './service.ts'

declare module '../core.ts' {
  interface Services {
    /** crash-safe sender of outgoing chain transfers (withdrawals, escrow payouts, gas top-ups) */
    outgoing: OutgoingSender
    withdrawals: WithdrawalService
  }
}

export const withdrawalsModule: FeatureModule = async ({ app, config, db, clock, log, services }) => {
  const { chain, jobs, ledger, wallets, transactions, coins } = services
  const outgoing = new OutgoingSender({ db, chain, clock, log, jobs, ledger, wallets })
  // Each run is one attempt; the sender schedules its own retries. The queue's retries only
  // cover a run that died (crash, lost database): a high limit, so a transfer is never dropped.
  jobs.register(OUTGOING_JOB, (payload: { id: string }) => outgoing.run(payload.id), {
    maxAttempts: 1000,
    baseDelayMs: 2000,
  })
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
  services.outgoing = outgoing
  services.withdrawals = withdrawals
  await app.register(withdrawalRoutes, { withdrawals, db })
}
