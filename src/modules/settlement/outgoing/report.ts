// Reports of a transfer's events to its caller: a job written in the transaction of settlement's
// own change, and the handlers that apply it once each, in a transaction of their own.
import { sendAhead } from '../../../db/ahead.ts'
import type { Tx } from '../../../db/index.ts'
import {
  type JobContext,
  type JobQueue,
  type PayloadOf,
  PermanentJobError,
} from '../../../platform/jobs/queue.ts'
import {
  type OutcomeHandlers,
  TRANSFER_ATTEMPT_FAILED,
  TRANSFER_FAILED,
  TRANSFER_SETTLED,
  TRANSFER_STARTED,
  type TransferEvent,
} from './events.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import type { SenderContext } from './types.ts'

const REPORT_KINDS = [TRANSFER_STARTED, TRANSFER_ATTEMPT_FAILED, TRANSFER_SETTLED, TRANSFER_FAILED] as const
type ReportKind = (typeof REPORT_KINDS)[number]

/** What every report of a transfer carries. */
export function eventOf(row: OutgoingRow): TransferEvent {
  return {
    transferId: row.id,
    purpose: row.purpose,
    referenceId: row.referenceId,
    coin: row.coin,
    from: row.fromAddress,
    to: row.toAddress,
    amount: row.amount,
    meta: row.meta ?? {},
  }
}

/** What every log line about a transfer carries. */
export function logOf(
  row: Pick<OutgoingRow, 'id' | 'purpose' | 'referenceId' | 'coin' | 'amount' | 'fromAddress' | 'toAddress'>,
) {
  return {
    transferId: row.id,
    purpose: row.purpose,
    referenceId: row.referenceId,
    coin: row.coin,
    amount: row.amount,
    from: row.fromAddress,
    to: row.toAddress,
  }
}

/**
 * Writes the job that reports an event of a transfer, in the transaction of the change; none for
 * an optional event its purpose has no handler for (a gas top-up's start costs no job).
 */
export async function report<K extends ReportKind>(s: SenderContext, tx: Tx, kind: K, payload: PayloadOf<K>) {
  if (!s.reports(payload.purpose, kind)) return
  const event = eventId(kind, payload)
  await s.deps.jobs.enqueue(tx, kind, payload, { dedupeKey: `${kind}:${payload.transferId}:${event}` })
}

/** The event a report is about: one per transfer for its start and its outcome, one per attempt. */
function eventId(kind: ReportKind, payload: TransferEvent & { attempt?: number }): string {
  if (kind === TRANSFER_STARTED) return 'started'
  if (kind === TRANSFER_ATTEMPT_FAILED) return `attempt:${payload.attempt}`
  return 'outcome'
}

/**
 * Marks the transfer started (its first pick-up) and reports it, in `tx`, the first write of the
 * run that picked it up: both sent ahead, no round trip of their own. Either is a no-op the second
 * time (the mark only sets a start not yet set; the report's job is one per transfer).
 */
export async function startIn(s: SenderContext, tx: Tx, row: OutgoingRow) {
  await sendAhead(tx, outgoingRepo.startStatement(tx, row.id, s.deps.clock.now()))
  await report(s, tx, TRANSFER_STARTED, eventOf(row))
}

/**
 * Registers the report jobs: each finds the handlers of its purpose and runs the matching one in
 * a transaction that also records the event as applied, so a report that runs twice (a worker
 * died after the commit) changes nothing the second time.
 */
export function registerReportJobs(
  s: SenderContext,
  jobs: JobQueue,
  handlersOf: (purpose: string) => OutcomeHandlers | undefined,
) {
  const run = async <K extends ReportKind>(kind: K, payload: PayloadOf<K>, ctx: JobContext) => {
    const handlers = handlersOf(payload.purpose)
    if (!handlers) {
      s.deps.log.error(
        { transferId: payload.transferId, purpose: payload.purpose, kind },
        'no handlers for this purpose',
      )
      throw new PermanentJobError(`no outcome handlers for purpose ${payload.purpose}`)
    }
    await s.deps.db.transaction().execute(async (tx) => {
      // The report's job is done with this transaction: no statement of its own after it.
      await ctx.finishIn(tx)
      const fresh = await outgoingRepo.claimEvent(
        tx,
        payload.transferId,
        eventId(kind, payload),
        s.deps.clock.now(),
      )
      if (!fresh) return
      const p = payload as never
      if (kind === TRANSFER_STARTED) await handlers.started?.(tx, p)
      else if (kind === TRANSFER_ATTEMPT_FAILED) await handlers.attemptFailed?.(tx, p)
      else if (kind === TRANSFER_SETTLED) await handlers.settled(tx, p)
      else await handlers.failed(tx, p)
    })
  }
  // A report must not be dropped: the caller's record would never learn the outcome.
  const opts = { maxAttempts: 1000, baseDelayMs: 2000 }
  for (const kind of REPORT_KINDS) jobs.register(kind, (payload, ctx) => run(kind, payload, ctx), opts)
}
