// Settlement: the only owner of custodial keys, nonces and outgoing chain transfers
// (`services.outgoing`). Other modules enqueue transfer intents in their own transactions.
import type { FeatureModule } from '../core.ts'
import { OutgoingSender } from './outgoing/sender.ts'
import { OUTGOING_JOB } from './outgoing/types.ts'

declare module '../core.ts' {
  interface Services {
    /** crash-safe sender of outgoing chain transfers (withdrawals, escrow payouts, gas top-ups) */
    outgoing: OutgoingSender
  }
}

export const settlementModule: FeatureModule = async ({ db, clock, log, services }) => {
  const { chain, jobs, ledger, wallets } = services
  const outgoing = new OutgoingSender({ db, chain, clock, log, jobs, ledger, wallets })
  // Each run is one attempt; the sender schedules its own retries. The queue's retries only
  // cover a run that died (crash, lost database): a high limit, so a transfer is never dropped.
  jobs.register(OUTGOING_JOB, (payload: { id: string }) => outgoing.run(payload.id), {
    maxAttempts: 1000,
    baseDelayMs: 2000,
  })
  services.outgoing = outgoing
}
