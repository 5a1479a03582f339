// What settlement reports about a transfer, as jobs written in the same transaction as its own
// change: started (first picked up), a failed attempt that will be retried, and the outcome
// (settled, or failed for good). The caller of each purpose handles them through
// `outgoing.handle(purpose, handlers)`: each report runs once, in a transaction of its own.
import type { Tx } from '../../../db/index.ts'
import type { OutgoingSendJob } from './types.ts'

export const TRANSFER_STARTED = 'transfer.started'
export const TRANSFER_ATTEMPT_FAILED = 'transfer.attempt-failed'
export const TRANSFER_SETTLED = 'transfer.settled'
export const TRANSFER_FAILED = 'transfer.failed'

/** What every report carries: the transfer and the caller's record it is for. */
export interface TransferEvent {
  transferId: string
  /** `withdrawal`, `escrow.leg`, `escrow.pay`, `gas.topup` */
  purpose: string
  /** the caller's record (withdrawal id, escrow leg id, ...) */
  referenceId: string
  coin: string
  /** lower-case addresses */
  from: string
  to: string
  /** base units, as a decimal string */
  amount: string
  /** what the caller kept with the transfer */
  meta: Record<string, unknown>
}

export type TransferStarted = TransferEvent

/** A failed attempt that will be retried (`attempt` counts from 1). */
export interface TransferAttemptFailed extends TransferEvent {
  attempt: number
  error: string
}

/** Mined with status success: the value (the funding hold posted) and the gas are booked. */
export interface TransferSettled extends TransferEvent {
  txHash: string
  gasUsed: string
  /** JSON text of the receipt: transactionHash, blockNumber, blockHash, from, to, status,
   * gasUsed, effectiveGasPrice, logs */
  responseData: string
  /** only in reports written before callers reserved their extras with holds of their own: the
   * ledger transfer id of each posting booked with the settlement, by its key (a withdrawal's fee,
   * booked in the posting of its funding hold) */
  booked?: Record<string, string>
  /** the ledger transfer that moved the value out of the funding (hold or account); absent from
   * reports written before holds funded transfers */
  valueTransferId?: string | null
}

/**
 * Failed for good (retries used up, a permanent refusal, or mined but reverted); this is also
 * the last failed attempt (`attempt`). Nothing left the funding: its hold was voided.
 */
export interface TransferFailed extends TransferEvent {
  attempt: number
  error: string
  code: string
  /** mined but reverted: its gas was spent */
  reverted: boolean
  /** set when it was mined but reverted */
  txHash: string | null
  /** JSON text: { error: true, status, message, data: { code, reason, attempts, errors, txHash? } } */
  responseData: string
  /** only in reports written before callers reserved their extras with holds of their own */
  booked?: Record<string, string>
}

declare module '../../../platform/jobs/queue.ts' {
  interface JobPayloads {
    'outgoing.send': OutgoingSendJob
    'outgoing.topup': OutgoingSendJob
    'transfer.started': TransferStarted
    'transfer.attempt-failed': TransferAttemptFailed
    'transfer.settled': TransferSettled
    'transfer.failed': TransferFailed
  }
}

/** A caller's handlers of one purpose; each runs in its own transaction, once per report. */
export interface OutcomeHandlers {
  started?: (tx: Tx, e: TransferStarted) => Promise<void>
  attemptFailed?: (tx: Tx, e: TransferAttemptFailed) => Promise<void>
  settled: (tx: Tx, e: TransferSettled) => Promise<void>
  failed: (tx: Tx, e: TransferFailed) => Promise<void>
}
