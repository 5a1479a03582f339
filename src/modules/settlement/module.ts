// Settlement: the only owner of custodial keys, nonces, outgoing chain transfers, the deposit
// watcher, reconciliation and coin halts. Other modules enqueue transfer intents in their own
// transactions and learn outcomes from report jobs that settlement writes in the same transaction
// as its change. It calls no module above it (the wallet is a read model over the ledger and
// settlement). Built in three steps: keys (needed at sign-up, before the account module), the
// chain watch (watcher, halts, reconciliation), then the outgoing sender, which signs with the
// keys and registers what it signs with the watcher.
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Database } from '../../db/index.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import type { SecretBox } from '../../platform/crypto/secrets.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import type { EventService } from '../events/types.ts'
import type { Ledger } from '../ledger/types.ts'
import type { TransactionService } from '../transactions/types.ts'
import { DepositDesk } from './deposits.ts'
import { KeyStore } from './keys.ts'
import { SettlementLookup } from './operator-lookup.ts'
import { OutgoingSender } from './outgoing/sender.ts'
import { type CrashHook, GAS_TOPUP_PURPOSE } from './outgoing/types.ts'
import { Halts, type SettlementReadiness } from './reconcile/halts.ts'
import { Reconciler } from './reconcile/job.ts'
import { ReorgRepairs } from './reorgs/service.ts'
import { safeHead } from './watcher/fetch.ts'
import { DepositWatcher, type WatchedCoins } from './watcher/job.ts'

/** What the operator API and a restore (modules/restore) run of settlement: the re-attach of a
 * mined transfer, the actions an operator may take on an outgoing transfer, the nonces and
 * transfers the chain shows after a backup, the findings, and the parked gas top-ups. */
export { attachMined } from './outgoing/attach.ts'
export { actionsOf } from './outgoing/operator.ts'
export { unknownNoncesAhead } from './restore/ahead.ts'
export { findingsRepo } from './restore/repo.ts'
export { chainAfterBackup } from './restore/scan.ts'
export { bookParkedGasTopUps } from './watcher/parked.ts'

/** What the operator's search and detail pages read of settlement's records (transfers, keys). */
export function buildSettlementLookup(
  d: ConstructorParameters<typeof SettlementLookup>[0],
): SettlementLookup {
  return new SettlementLookup(d)
}

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
  /** deposits deep reorganisations took back: listed, reversed or kept by operators */
  reorgs: ReorgRepairs
  /** one transaction's deposits as the chain and the watcher know them; operator rescans */
  deposits: DepositDesk
}

/** The gas transfers of a coin will cost, for callers that charge it before asking for them. */
export { NATIVE_TRANSFER_GAS, quoteTransferFee, TOKEN_TRANSFER_GAS } from './outgoing/fee-quote.ts'

/** Custodial keys: random secp256k1, sealed with the key-encryption key. */
export function buildKeys(d: { secrets: SecretBox; clock: Clock }) {
  return { keys: new KeyStore(d) }
}

/**
 * The deposit watcher, coin halts and reconciliation. Their jobs are registered here and their
 * first runs queued (only worker processes run them).
 */
export async function buildChainWatch(d: {
  config: Config
  database: Database
  chain: ChainAdapter
  clock: Clock
  log: Logger
  jobs: JobQueue
  ledger: Ledger
  transactions: TransactionService
  /** domain events: a reversed deposit notifies its owner */
  events: Pick<EventService, 'emit'>
  /** the coin registry: coins operators add at run time are scanned for from their addition on */
  coins: WatchedCoins
}): Promise<{ settlement: SettlementChecks }> {
  const { config, database, chain, clock, log, jobs } = d
  const halts = new Halts({
    db: database.db,
    clock,
    log,
    cache: database.caches.create<string[]>('coin halts', ['coin_halts']),
  })
  const reorgs = new ReorgRepairs({
    db: database.db,
    chain,
    clock,
    log,
    ledger: d.ledger,
    events: d.events,
    transactions: d.transactions,
    confirmedHead: () => safeHead(chain, config.confirmations),
  })
  const watcher = new DepositWatcher({
    database,
    chain,
    clock,
    log,
    jobs,
    ledger: d.ledger,
    transactions: d.transactions,
    halts,
    reorgs,
    confirmations: config.confirmations,
    coins: d.coins,
  })
  const reconciliation = new Reconciler({
    database,
    chain,
    clock,
    log,
    jobs,
    halts,
    // drift of more on chain than in the ledger is rescanned (and credited) before it halts
    ledger: d.ledger,
    transactions: d.transactions,
  })
  watcher.register()
  reconciliation.register()
  await watcher.start()
  await reconciliation.start()
  const deposits = new DepositDesk({ database, chain, jobs, confirmations: config.confirmations })
  return {
    settlement: { watcher, halts, reconciliation, reorgs, deposits, readiness: () => halts.readiness() },
  }
}

/** The crash-safe sender of outgoing chain transfers (withdrawals, escrow payouts, gas top-ups). */
export function buildOutgoing(d: {
  database: Database
  chain: ChainAdapter
  clock: Clock
  log: Logger
  jobs: JobQueue
  ledger: Ledger
  /** the custodial keys (`buildKeys`): custodial senders sign with them */
  keys: KeyStore
  settlement: SettlementChecks
  crashHook?: CrashHook | undefined
}) {
  const { database, chain, clock, log, jobs, ledger, keys } = d
  const outgoing = new OutgoingSender({
    db: database.db,
    chain,
    clock,
    log,
    jobs,
    ledger,
    keys,
    watcher: d.settlement.watcher,
    halts: d.settlement.halts,
    crashHook: d.crashHook,
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
  return { outgoing }
}
