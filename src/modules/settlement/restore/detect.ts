// Transactions a custodial key signed that this database never signed, while the key was never
// exported: only the platform holds such a key, so the transaction is the platform's own, signed by
// a timeline of the database that a restore lost. Booking it as an outside withdrawal would debit
// the owner a second time once the lost withdrawal is recreated; instead, in the watcher's
// transaction, it becomes a finding and every coin it moved (its value, its gas) halts with the
// reason `unknown_platform_transfer`, so its movements are parked until an operator re-attaches it.
import type { Logger } from 'pino'
import type { Tx } from '../../../db/index.ts'
import type { Clock } from '../../../platform/clock.ts'
import { newId } from '../../../platform/crypto/ids.ts'
import type { Halts } from '../reconcile/halts.ts'
import { watcherRepo } from '../watcher/repo.ts'
import type { Movement } from '../watcher/types.ts'
import { findingsRepo } from './repo.ts'

/** Movements leaving custodial addresses whose key was never exported, grouped by transaction. */
export function unknownPlatformTransfers(movements: readonly Movement[]): Map<string, Movement[]> {
  const out = new Map<string, Movement[]>()
  for (const m of movements) {
    if (m.kind === 'deposit' || m.own || m.custodial.exportedAt) continue
    const list = out.get(m.txHash) ?? []
    list.push(m)
    out.set(m.txHash, list)
  }
  return out
}

/**
 * Records each unknown platform transfer of `movements` (once per transaction) and halts its coins,
 * inside the watcher's transaction and before it reads the halted coins, so its movements are
 * parked. A transaction an operator already judged external is left to be booked as such.
 */
export async function haltUnknownPlatformTransfers(
  tx: Tx,
  d: { chainId: string; halts: Halts; clock: Clock; log: Logger },
  movements: readonly Movement[],
): Promise<number> {
  const found = unknownPlatformTransfers(movements)
  if (found.size === 0) return 0
  const known = await findingsRepo.statusByHash(tx, d.chainId, [...found.keys()])
  let halted = 0
  for (const [txHash, list] of found) {
    // (resolved already: re-attached, judged external or booked as a loss)
    if (known.has(txHash) && known.get(txHash) !== 'open') continue
    const value = list.find((m) => m.kind === 'withdrawal')
    const fee = list.find((m) => m.kind === 'fee')
    const first = value ?? fee!
    const now = d.clock.now()
    const details = {
      chainId: d.chainId,
      txHash,
      address: first.address,
      ownerKind: first.custodial.ownerKind,
      ownerId: first.custodial.ownerId,
      coin: value?.coin ?? fee?.coin,
      amount: (value?.amount ?? 0n).toString(),
      to: first.to,
      block: first.blockNumber.toString(),
    }
    const id = await findingsRepo.insert(tx, {
      id: newId(),
      chainId: d.chainId,
      txHash,
      address: first.address,
      ownerKind: first.custodial.ownerKind,
      ownerId: first.custodial.ownerId,
      coin: value?.coin ?? fee!.coin,
      amount: value?.amount ?? 0n,
      toAddress: value ? (value.to ?? null) : first.to,
      gasCoin: fee?.coin ?? null,
      gasFee: fee?.amount ?? 0n,
      blockNumber: Number(first.blockNumber),
      detectedAt: now,
    })
    if (id) {
      await watcherRepo.audit(tx, 'chain.unknown-platform-transfer', { findingId: id, ...details }, now)
      d.log.error(
        { event: 'platform-transfer.unknown', findingId: id, ...details },
        'a custodial key that was never exported signed a transaction this database does not know (a restored database?): its coins halt until an operator re-attaches it (docs/operations.md)',
      )
    }
    for (const coin of new Set(list.map((m) => m.coin)))
      if (await d.halts.halt(tx, { coin, reason: 'unknown_platform_transfer', details })) halted++
  }
  return halted
}
