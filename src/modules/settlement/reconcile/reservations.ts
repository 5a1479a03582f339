// The reservation invariants, checked by the reconciliation job beside the ledger's own: every
// open outgoing transfer from a custodial address is reserved by exactly one pending ledger hold
// of its amount; every withdrawal's fee hold is pending while the withdrawal (or its transfer) is
// open, posted in full once it completed and voided once it failed; and every pending hold has an
// owner (an open transfer whose funding or gas it reserves, a withdrawal whose fee it reserves, or
// an open reorganisation finding). A hold without an owner is value nobody can spend and nothing
// will release; a transfer without its hold could send value the ledger lets someone else spend;
// a fee hold out of step with its withdrawal charged a fee for nothing sent, or none for a send.
import type { Executor } from '../../../db/index.ts'
import type { InvariantViolation } from './checks.ts'
import { reservationRepo } from './repo-reservations.ts'

interface HoldColumns {
  holdId: string | null
  holdStatus: string | null
  holdCoin: string | null
  holdAmount: string | null
}

/** The hold a row was checked against, '' for what it lacks. */
const holdOf = (r: HoldColumns) => ({
  holdId: r.holdId ?? '',
  holdStatus: r.holdStatus ?? '',
  holdCoin: r.holdCoin ?? '',
  holdAmount: r.holdAmount ?? '',
})

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
        ...holdOf(t),
      },
    })
  for (const w of await reservationRepo.withdrawalFeesNotHeld(ex))
    out.push({
      check: 'withdrawal_fee_hold',
      coin: w.coin,
      id: w.id,
      detail: {
        status: w.status,
        fee: w.fee,
        transferStatus: w.transferStatus ?? '',
        ...holdOf(w),
        postedAmount: w.postedAmount ?? '',
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
