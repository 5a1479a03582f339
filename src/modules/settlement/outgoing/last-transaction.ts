// A run's last transaction: the one after which the run writes nothing more (its deferral, its
// settlement, its failed attempt). It also records, sent ahead with its first statement, what the
// run did before that needs no transaction of its own: the first broadcast of the signed
// transaction (signed → sent), and for a run of the `outgoing.send` job the job done, so that the
// queue writes no outcome after the run. Two round trips less a transfer.
//
// A broadcast whose record is lost (the worker died before the last transaction, or it rolled
// back) leaves the transfer `signed`: its next run broadcasts it again, which is harmless.
import { sendAhead } from '../../../db/ahead.ts'
import type { Tx } from '../../../db/index.ts'
import { outgoingRepo } from './repo.ts'
import type { RunState, SenderContext } from './types.ts'

/** Runs `work` in a transaction that also records the run's broadcast and its job's success. */
export async function lastTransaction<T>(
  s: SenderContext,
  run: RunState | undefined,
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  const finishIn = run?.finishIn
  const sentAt = run?.sentAt
  if (!finishIn && !sentAt) return s.deps.db.transaction().execute(work)
  // Until it commits: a rollback leaves the job to a later last transaction, or to the run's end.
  if (finishIn) run.unfinished = true
  const result = await s.deps.db.transaction().execute(async (tx) => {
    if (sentAt) await sendAhead(tx, outgoingRepo.sentStatement(tx, run.id, sentAt))
    if (finishIn) await finishIn(tx)
    return work(tx)
  })
  run.unfinished = false
  run.sentAt = undefined
  return result
}

/**
 * Thrown at a run's end when a last transaction recorded its job done but did not commit, and none
 * committed after it: the queue then records the run failed, and the job runs again.
 */
export class UnfinishedRun extends Error {
  constructor(id: string) {
    super(`the last transaction of a run of transfer ${id} did not commit`)
  }
}
