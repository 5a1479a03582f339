// Settlement: the only owner of custodial keys, nonces and outgoing chain transfers
// (`services.outgoing`). Other modules enqueue transfer intents in their own transactions and
// learn outcomes from report jobs that settlement writes in the same transaction as its change.
import type { FeatureModule } from '../core.ts'
import { OutgoingSender } from './outgoing/sender.ts'
import { GAS_TOPUP_PURPOSE } from './outgoing/types.ts'

declare module '../core.ts' {
  interface Services {
    /** crash-safe sender of outgoing chain transfers (withdrawals, escrow payouts, gas top-ups) */
    outgoing: OutgoingSender
  }
}

export const settlementModule: FeatureModule = async ({ db, clock, log, services }) => {
  const { chain, jobs, ledger, wallets } = services
  const outgoing = new OutgoingSender({
    db,
    chain,
    clock,
    log,
    jobs,
    ledger,
    wallets,
    halts: services.settlement.halts,
  })
  outgoing.registerJobs(jobs)
  // A top-up is the platform's own value moving between its addresses: the deposit watcher books
  // its arrival, and the transfer waiting for it checks again on its own. Its outcome is logged.
  outgoing.handle(GAS_TOPUP_PURPOSE, {
    settled: async (_tx, e) => {
      log.info(
        { transferId: e.transferId, to: e.to, coin: e.coin, amount: e.amount, txHash: e.txHash },
        'gas top-up confirmed',
      )
    },
    failed: async (_tx, e) => {
      log.warn(
        { transferId: e.transferId, to: e.to, coin: e.coin, amount: e.amount, error: e.error },
        'gas top-up failed',
      )
    },
  })
  services.outgoing = outgoing
}
