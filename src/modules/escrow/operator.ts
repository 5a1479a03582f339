// Escrow payout legs as operators see them (every escrow's, by status, kind and coin), and the
// one escrow action an operator takes on a leg that failed for good: send the escrow's failed legs
// again (their value never left the escrow's account). Actions on a leg's open transfer (run now,
// replace, cancel) are settlement's operator actions.
import type { Db, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import type { EscrowPayouts } from './payouts.ts'
import { escrowRepo } from './repo.ts'
import { escrowOperatorRepo, type LegFilter, legOperatorRepo } from './repo-operator.ts'

export class EscrowLegOperations {
  constructor(private readonly deps: { db: Db; clock: Clock; payouts: EscrowPayouts }) {}

  list(f: LegFilter) {
    return legOperatorRepo.list(this.deps.db, f)
  }

  get(id: string) {
    return legOperatorRepo.get(this.deps.db, id)
  }

  /** One escrow (the operator's escrow page), or undefined. */
  escrow(id: string) {
    return escrowOperatorRepo.get(this.deps.db, id)
  }

  /** A user's newest escrows, as payer or receiver. */
  escrowsOf(userId: string, limit: number) {
    return escrowOperatorRepo.ofUser(this.deps.db, userId, limit)
  }

  /**
   * Sends the escrow's failed legs again (new transfers; the failed ones stay on record), in one
   * transaction with `then` (the operator's audit row). Returns how many legs were sent again.
   */
  async resendFailed(legId: string, then: (tx: Tx) => Promise<void>): Promise<number> {
    return this.deps.db.transaction().execute(async (tx) => {
      const leg = await escrowRepo.getLeg(tx, legId)
      if (!leg) throw errors.notFound('escrow leg')
      const escrow = await escrowRepo.get(tx, leg.escrowId, true)
      const locked = await escrowRepo.getLeg(tx, legId, true)
      if (!escrow || !locked) throw errors.notFound('escrow leg')
      if (locked.status !== 'failed')
        throw errors.named(
          'ESCROW_LEG_NOT_FAILED',
          `The leg is ${locked.status}: only a leg that failed for good is sent again`,
        )
      const n = await this.deps.payouts.retryFailed(tx, escrow)
      await then(tx)
      return n
    })
  }
}

export type { LegFilter }
