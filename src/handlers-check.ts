// The composition root's start-up check: every job kind the product declares, and every purpose
// of an outgoing transfer, has its handler once every module is built, or the process does not
// start (a second handler for one is refused when it is registered). A job of a kind nobody runs,
// or a transfer whose outcome nobody records, would otherwise be found only when it is stuck.
import type { TransferPurpose } from './modules/settlement/outgoing/types.ts'
import type { JobKind } from './platform/jobs/queue.ts'

/** Every job kind of the product (each declared on `JobPayloads` by the module that runs it). */
export const JOB_KINDS = [
  'mail.send',
  'jobs.prune',
  'wallet.watch',
  'deposit.credited',
  'outgoing.send',
  'outgoing.topup',
  'transfer.started',
  'transfer.attempt-failed',
  'transfer.settled',
  'transfer.failed',
  'settlement.rescan',
  'settlement.reconcile',
  'reserves.snapshot',
  'files.delete-object',
  'notifications.email',
  'direct-deposit.expire',
  'work.escrow_split',
  'work.inspection_release',
  'work.inspection_reminder',
  'webhooks.deliver',
  'verification.forget',
] as const satisfies readonly JobKind[]

export function assertHandled(
  jobs: { unhandled(kinds: readonly string[]): string[] },
  outgoing: { unhandledPurposes(): TransferPurpose[] },
): void {
  const kinds = jobs.unhandled(JOB_KINDS)
  const purposes = outgoing.unhandledPurposes()
  if (kinds.length || purposes.length)
    throw new Error(
      [
        kinds.length ? `job kinds without a handler: ${kinds.join(', ')}` : '',
        purposes.length ? `transfer purposes without outcome handlers: ${purposes.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('; '),
    )
}
