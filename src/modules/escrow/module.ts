// Escrow (spec #13–#15) and the collection payment API (/v1/payment): quotes, payment detection,
// release in on-chain legs (whole or in parts), cancellation.
import type { FastifyInstance } from 'fastify'
import type { Db } from '../../db/index.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import { quoteTransferFee, type SettlementChecks } from '../settlement/module.ts'
import { DEPOSIT_CREDITED_JOB, type DepositCredited, type OutgoingSender } from '../settlement/types.ts'
import { CollectionPayments } from './collection-payment.ts'
import { DIRECT_DEPOSIT_EXPIRY_JOB, DirectDeposits } from './direct-deposit.ts'
import { directDepositRoutes } from './direct-deposit-routes.ts'
import { EscrowLegOperations } from './operator.ts'
import { paymentRoutes } from './payment-routes.ts'
import { EscrowPayouts } from './payouts.ts'
import { escrowRoutes } from './routes.ts'
import { type EscrowDeps, EscrowService } from './service.ts'

type Shared = Omit<EscrowDeps, 'payouts' | 'watcher' | 'halts' | 'fees' | 'cardPayments'>

export function buildEscrow(
  d: Shared & { jobs: JobQueue; outgoing: OutgoingSender; settlement: SettlementChecks },
) {
  const { jobs, outgoing, settlement, ...shared } = d
  const payouts = new EscrowPayouts({ ...shared, outgoing, jobs, deposits: settlement.watcher.reports })
  const escrow = new EscrowService({
    ...shared,
    payouts,
    watcher: settlement.watcher,
    halts: settlement.halts,
    // A release charges the gas of its legs as settlement quotes it.
    fees: { quoteTransferFee: (coin) => quoteTransferFee(d.chain, coin) },
    // No card provider is integrated: only on-chain payment is offered.
    cardPayments: false,
  })
  // Credited payments to escrow addresses are reported by the watcher through this job, written
  // in the transaction that credits them; the handler applies each once, in its own transaction.
  jobs.register(DEPOSIT_CREDITED_JOB, (report: DepositCredited) => escrow.onDepositCredited(report), {
    maxAttempts: 1000,
    deleteOnSuccess: true,
  })
  const payments = new CollectionPayments({
    db: d.db,
    clock: d.clock,
    chain: d.chain,
    collections: d.collections,
    escrow,
  })
  const escrowLegs = new EscrowLegOperations({ db: d.db, clock: d.clock, payouts })
  const deposits = new DirectDeposits({
    db: d.db,
    clock: d.clock,
    log: d.log,
    chain: d.chain,
    jobs,
    collections: d.collections,
    escrow,
  })
  // An unpaid public payment order expires at its end: its escrow is cancelled, what arrived refunded.
  jobs.register(DIRECT_DEPOSIT_EXPIRY_JOB, (p) => deposits.expire(p.orderId), { maxAttempts: 1000 })
  return { escrow, payments, escrowLegs, deposits }
}

export async function escrowHttp(
  app: FastifyInstance,
  s: Pick<ReturnType<typeof buildEscrow>, 'escrow' | 'payments' | 'deposits'> & { db: Db },
) {
  await app.register(escrowRoutes, { escrow: s.escrow, db: s.db })
  await app.register(paymentRoutes, { payments: s.payments, db: s.db })
  await app.register(directDepositRoutes, { deposits: s.deposits })
}
