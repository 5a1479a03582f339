// Movements parked while their coin was halted, booked once the coin is resumed: a bounded batch
// per pass, read without those of transactions an operator has still to judge (an open platform
// transfer finding keeps its movements parked until it is re-attached or marked external).

import type { Tx } from '../../../db/index.ts'
import { findingsRepo } from '../restore/repo.ts'
import type { ApplyContext } from './apply.ts'
import { applyParked, logApplied, parkedMovement, prepare } from './apply.ts'
import { chainOrder } from './classify.ts'
import type { WatcherDeps } from './options.ts'
import { creditPlatformGas, markPlatformGas } from './platform-gas.ts'
import { watcherRepo } from './repo.ts'

/** Parked movements of coins that are no longer halted, booked now (at most `limit`). */
export async function applyParkedPass(deps: WatcherDeps, ctx: ApplyContext, limit: number): Promise<number> {
  const { database, halts, transactions, chain } = deps
  const chainId = String(chain.chainId)
  const halted = await halts.haltedCoins()
  const held = await watcherRepo.held(database.db, chainId, [...halted], limit)
  if (held.length === 0) return 0
  const gasWallet = chain.gasWallet.address.toLowerCase()
  const nativeCoin = chain.coins.find((c) => !c.isToken)?.reference ?? null
  const movements = held
    .map((h) => markPlatformGas(parkedMovement(h), gasWallet, nativeCoin))
    .sort(chainOrder)
  const prepared = await prepare(ctx, movements)
  await transactions.chainRecordId()
  const result = await database.db.transaction().execute(async (tx) => {
    // Read again in the transaction: a coin halted, or a finding opened, since the read above.
    const still = await halts.haltedCoins(tx)
    const findings = await findingsRepo.statusByHash(tx, chainId, [
      ...new Set(movements.map((m) => m.txHash)),
    ])
    const due = movements.filter((m) => !still.has(m.coin) && findings.get(m.txHash) !== 'open')
    await creditPlatformGas(tx, ctx.ledger, due)
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

/**
 * Books, in the caller's transaction, the parked gas top-ups of `address` (native value from the
 * gas wallet that no transfer of this database registered) to the platform's gas account at the
 * address, whatever the halt of the native coin: a re-attach takes the gas of the lost timeline's
 * transaction from there. Answers how many were booked.
 */
export async function bookParkedGasTopUps(tx: Tx, ctx: ApplyContext, address: string): Promise<number> {
  const { chain } = ctx
  const nativeCoin = chain.coins.find((c) => !c.isToken)?.reference ?? null
  if (!nativeCoin) return 0
  const gasWallet = chain.gasWallet.address.toLowerCase()
  const held = await watcherRepo.heldDepositsAt(tx, String(chain.chainId), address.toLowerCase(), nativeCoin)
  const topUps = held
    .map((h) => markPlatformGas(parkedMovement(h), gasWallet, nativeCoin))
    .filter((m) => m.platformGas)
    .sort(chainOrder)
  if (topUps.length === 0) return 0
  await creditPlatformGas(tx, ctx.ledger, topUps)
  const result = await applyParked(tx, ctx, {
    movements: topUps,
    prepared: { receipts: new Map(), rates: new Map() },
  })
  return result.applied
}
