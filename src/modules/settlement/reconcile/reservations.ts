// The reservation invariants, checked by the reconciliation job beside the ledger's own: every
// open outgoing transfer from a custodial address is reserved by exactly one pending ledger hold
// of its amount (and what its success posts besides, a withdrawal's fee), and every pending hold
// has an open owner (an open transfer whose funding or gas it reserves, or an open reorganisation
// finding). A hold without an owner is value nobody can spend and nothing will release; a
// transfer without its hold could send value the ledger lets someone else spend.
import type { Executor } from '../../../db/index.ts'
import type { InvariantViolation } from './checks.ts'
import { reservationRepo } from './repo-reservations.ts'

export async function reservationInvariants(ex: Executor): Promise<InvariantViolation[]> {
  const out: InvariantViolation[] = []
  for (const t of await reservationRepo.transfersNotHeld(ex))
    out.push({
      check: 'transfer_not_held',
      coin: t.coin,
      id: t.id,
      detail: {
        purpose: t.purpose,
        amount: t.amount,
        reserves: t.reserves,
        holdId: t.holdId ?? '',
        holdStatus: t.holdStatus ?? '',
        holdCoin: t.holdCoin ?? '',
        holdAmount: t.holdAmount ?? '',
      },
    })
  for (const h of await reservationRepo.holdsWithoutOwner(ex))
    out.push({
      check: 'hold_without_owner',
      coin: h.coin,
      id: h.id,
      detail: { accountId: h.accountId, amount: h.amount, kind: h.kind },
    })
  return out
}
