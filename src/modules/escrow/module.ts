// Escrow (spec #13–#15) and the collection payment API (/v1/payment): quotes, payment detection,
// release in on-chain legs (whole or in parts), cancellation.
import type { FeatureModule } from '../core.ts'
import { DEPOSIT_CREDITED_JOB, type DepositCredited } from '../settlement/watcher/types.ts'
import { CollectionPayments } from './collection-payment.ts'
import { paymentRoutes } from './payment-routes.ts'
import { EscrowPayouts } from './payouts.ts'
import { escrowRoutes } from './routes.ts'
import { EscrowService } from './service.ts'

declare module '../core.ts' {
  interface Services {
    escrow: EscrowService
  }
}

export const escrowModule: FeatureModule = async ({ app, config, db, clock, log, services }) => {
  const deps = {
    db,
    clock,
    log,
    chain: services.chain,
    ledger: services.ledger,
    wallets: services.wallets,
    collections: services.collections,
    transactions: services.transactions,
  }
  const payouts = new EscrowPayouts({
    ...deps,
    outgoing: services.outgoing,
    jobs: services.jobs,
    deposits: services.settlement.watcher.reports,
  })
  const escrow = new EscrowService({
    ...deps,
    coins: services.coins,
    payouts,
    watcher: services.settlement.watcher,
    halts: services.settlement.halts,
    verifySensitiveCode: (userId, code, then) =>
      services.accountSecurity.verifySensitiveCode(userId, code, then),
    platformFeePercent: config.platformFeePercent,
    // No card provider is integrated: only on-chain payment is offered.
    cardPayments: false,
  })
  services.escrow = escrow
  // Credited payments to escrow addresses are reported by the watcher through this job, written
  // in the transaction that credits them; the handler applies each once, in its own transaction.
  services.jobs.register(
    DEPOSIT_CREDITED_JOB,
    (report: DepositCredited) => escrow.onDepositCredited(report),
    {
      maxAttempts: 1000,
      deleteOnSuccess: true,
    },
  )
  await app.register(escrowRoutes, { escrow, db })
  const payments = new CollectionPayments({
    db,
    clock,
    chain: services.chain,
    collections: services.collections,
    escrow,
  })
  await app.register(paymentRoutes, { payments, db })
}
