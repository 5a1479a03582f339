// What other modules may name of settlement: its services' types, the events of an outgoing
// transfer that a purpose's handlers receive, and the constants of its jobs. Behaviour is reached
// through module.ts (the services it builds, and the functions a restore runs).
export { type DepositDesk, MAX_RESCAN_BLOCKS } from './deposits.ts'
export type { CustodialKey, KeyOwnerKind, KeyStore } from './keys.ts'
export type { SettlementLookup, TransferSummary } from './operator-lookup.ts'
export type { MinedTransaction } from './outgoing/attach.ts'
export type {
  OutcomeHandlers,
  TransferAttemptFailed,
  TransferEvent,
  TransferFailed,
  TransferSettled,
  TransferStarted,
} from './outgoing/events.ts'
export type { TransferFeeQuote } from './outgoing/fee-quote.ts'
export type { OutgoingRow } from './outgoing/repo.ts'
export type { TransferFilter } from './outgoing/repo-operator.ts'
export type { OutgoingSender } from './outgoing/sender.ts'
export { TRANSFER_JOBS } from './outgoing/types.ts'
export type { Halts } from './reconcile/halts.ts'
export type { Reconciler } from './reconcile/job.ts'
export type { ReorgFinding, ReorgRepairs } from './reorgs/service.ts'
export type { PlatformTransferRow } from './restore/repo.ts'
export type { ChainAfterBackup } from './restore/scan.ts'
export type { DepositWatcher, ScanResult } from './watcher/job.ts'
export type { DepositReports } from './watcher/reports.ts'
export { DEPOSIT_CREDITED_JOB, type DepositCredited } from './watcher/types.ts'
