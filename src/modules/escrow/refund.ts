// Returning what a paid escrow holds to its payer's wallet: the escrow's balance less the legs it
// still has to send, as one `refund` leg through the normal payout path (as an overpayment or a
// cancelled partial payment is returned). Used when a funded job is cancelled and for the
// creator's share of a disputed escrow.
import type { UserAddresses } from './addresses.ts'
import { returnToPayer } from './payer-refund.ts'
import type { EscrowPayouts } from './payouts.ts'
import type { EscrowPorts } from './ports.ts'
import { escrowRepo } from './repo.ts'

export type RefundDeps = Pick<EscrowPorts, 'db' | 'clock' | 'transactions' | 'collections'> & {
  payouts: EscrowPayouts
  addresses: UserAddresses
}

/**
 * Refunds the rest of a paid escrow to its payer. `then` is the escrow's status afterwards:
 * `cancelled` when nothing went to the receiver (the collection records the escrow as refunded),
 * `releasing` when a share was released first (it becomes `released` once every leg is mined).
 * Does nothing unless the escrow is still `paid`; answers the base units refunded.
 */
export async function refundRest(
  deps: RefundDeps,
  escrowId: string,
  then: 'cancelled' | 'releasing',
): Promise<bigint> {
  const { db } = deps
  const row = await escrowRepo.get(db, escrowId)
  if (row?.status !== 'paid') return 0n
  // Read before the transaction: the payer's address may need a key, the rate may need the feed.
  const payerAddress = await db.transaction().execute((tx) => deps.addresses.userAddress(tx, row.payerId))
  const rate = await deps.transactions.rateOf(row.coin)
  return db.transaction().execute(async (tx) => {
    const locked = (await escrowRepo.get(tx, escrowId, true))!
    if (locked.status !== 'paid') return 0n
    const { free, open } = await deps.payouts.free(tx, locked)
    const now = deps.clock.now()
    if (then === 'cancelled') {
      await escrowRepo.update(tx, locked.id, { status: 'cancelled', cancelledAt: now }, now)
      await deps.collections.markEscrow(tx, locked.collectionId, { state: 'refunded', escrowId: locked.id })
    } else if (free > 0n || open > 0n) {
      await escrowRepo.update(tx, locked.id, { status: 'releasing' }, now)
    } else {
      // Nothing left to send and nothing under way: released now.
      await escrowRepo.update(tx, locked.id, { status: 'released', releasedAt: now }, now)
      await deps.collections.markEscrow(tx, locked.collectionId, { state: 'released', escrowId: locked.id })
    }
    await returnToPayer(deps, tx, locked, free, rate, payerAddress)
    return free > 0n ? free : 0n
  })
}
