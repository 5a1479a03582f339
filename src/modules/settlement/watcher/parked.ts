// Movements parked while their coin was halted, booked once the coin is resumed: a bounded batch
// per pass, read without those of transactions an operator has still to judge (an open platform
// transfer finding keeps its movements parked until it is re-attached or marked external).

import { findingsRepo } from '../restore/repo.ts'
import type { ApplyContext } from './apply.ts'
import { applyParked, logApplied, parkedMovement, prepare } from './apply.ts'
import { chainOrder } from './classify.ts'
import type { WatcherDeps } from './options.ts'
import { watcherRepo } from './repo.ts'

/** Parked movements of coins that are no longer halted, booked now (at most `limit`). */
export async function applyParkedPass(deps: WatcherDeps, ctx: ApplyContext, limit: number): Promise<number> {
  const { database, halts, transactions, chain } = deps
  const chainId = String(chain.chainId)
  const halted = await halts.haltedCoins()
  const held = await watcherRepo.held(database.db, chainId, [...halted], limit)
  if (held.length === 0) return 0
  const movements = held.map(parkedMovement).sort(chainOrder)
  const prepared = await prepare(ctx, movements)
  await transactions.chainRecordId()
  const result = await database.db.transaction().execute(async (tx) => {
    // Read again in the transaction: a coin halted, or a finding opened, since the read above.
    const still = await halts.haltedCoins(tx)
    const findings = await findingsRepo.statusByHash(tx, chainId, [
      ...new Set(movements.map((m) => m.txHash)),
    ])
    const due = movements.filter((m) => !still.has(m.coin) && findings.get(m.txHash) !== 'open')
    return applyParked(tx, ctx, { movements: due, prepared })
  })
  if (result.applied > 0)
    deps.log.warn(
      { event: 'parked.applied', count: result.applied },
      'parked chain movements of resumed coins applied',
    )
  logApplied(deps.log, chain.chainId, result)
  return result.applied
}
