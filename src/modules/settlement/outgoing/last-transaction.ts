// A run's last transaction: the one after which the run writes nothing more (its deferral, its
// settlement, its failed attempt). A run of the `outgoing.send` job records the job done in it, sent
// ahead with its first statement, so the queue writes no outcome of its own after the run: one
// round trip less a run.
import type { Tx } from '../../../db/index.ts'
import type { RunState, SenderContext } from './types.ts'

/** Runs `work` in a transaction that also records the run's job done (when the run is a job's). */
export async function lastTransaction<T>(
  s: SenderContext,
  run: RunState | undefined,
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  const finishIn = run?.finishIn
  if (!finishIn) return s.deps.db.transaction().execute(work)
  // Until it commits: a rollback leaves the job to a later last transaction, or to the run's end.
  run.unfinished = true
  const result = await s.deps.db.transaction().execute(async (tx) => {
    await finishIn(tx)
    return work(tx)
  })
  run.unfinished = false
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
