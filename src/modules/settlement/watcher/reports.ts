// What other modules may know of credited deposits: whether a transaction was credited, and the
// credits whose report (`deposit.credited`) is still to be handled, each handled exactly once.
import type { Executor, Tx } from '../../../db/index.ts'
import type { Clock } from '../../../platform/clock.ts'
import { type UnreportedDeposit, watcherRepo } from './repo.ts'

export type { UnreportedDeposit }

export class DepositReports {
  constructor(private readonly deps: { chainId: number; clock: Clock }) {}

  /** Whether the watcher credited a deposit of `txHash` (to `address`, when given). */
  credited(ex: Executor, txHash: string, address?: string): Promise<boolean> {
    return watcherRepo.credited(ex, String(this.deps.chainId), txHash, address)
  }

  /** Credited deposits to `address` whose report was not handled yet, in chain order. */
  unreported(ex: Executor, address: string): Promise<UnreportedDeposit[]> {
    return watcherRepo.unreported(ex, address)
  }

  /**
   * Marks the report of the deposit credited by `transferId` handled, inside the handler's
   * transaction; false when it was handled before (then the handler must do nothing).
   */
  markReported(tx: Tx, transferId: string): Promise<boolean> {
    return watcherRepo.markReported(tx, transferId, this.deps.clock.now())
  }
}
