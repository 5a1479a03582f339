// What a transfer's outcome books out of its funding, in the transaction that settles it (so the
// ledger and the chain never disagree in between). Every transfer from a custodial address is
// funded by one pending ledger hold (withdrawals, in-app payments, escrow legs, fee sweeps): on
// success the hold is posted, the value to the chain's clearing account and the postings the
// caller asked for (a withdrawal's fee) in one ledger transfer, the rest released; on failure it
// is voided. Exactly that hold, once. The platform signers (gas top-ups) send value outside the
// ledger: nothing is booked for them.
import type { Tx } from '../../../db/index.ts'
import type { OpenAccountKind } from '../../ledger/types.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import type { SenderContext } from './types.ts'

export interface Booked {
  /** the ledger transfer that moved the value to the chain (null: nothing moved) */
  valueTransferId: string | null
  /** the ledger transfer id of each posting the caller asked for, by its key */
  booked: Record<string, string>
}

/** The ledger key of the transfer that moves a settled transfer's value out of its funding. */
export const valueKey = (transferId: string) => `outgoing:${transferId}:value`

/** Books the outcome's movements out of the transfer's funding hold (none: nothing to book). */
export async function bookOutcome(
  s: SenderContext,
  tx: Tx,
  row: OutgoingRow,
  outcome: 'completed' | 'failed',
): Promise<Booked> {
  if (row.fundingHoldId) return resolveHold(s, tx, row, row.fundingHoldId, outcome)
  if (row.fromKind !== 'platform')
    throw new Error(`transfer ${row.id} from a custodial address has no funding hold`)
  return { valueTransferId: null, booked: {} }
}

/** Success: posts the hold (value to the clearing account, then each posting). Failure: voids it. */
async function resolveHold(
  s: SenderContext,
  tx: Tx,
  row: OutgoingRow,
  holdId: string,
  outcome: 'completed' | 'failed',
): Promise<Booked> {
  const { ledger } = s.deps
  const postings = await outgoingRepo.postings(tx, row.id, outcome)
  if (outcome === 'failed') {
    if (postings.length > 0) throw new Error(`transfer ${row.id} is funded by a hold: a failure voids it`)
    await ledger.void(tx, { hold: holdId, key: `outgoing:${row.id}:void` })
    await s.crashPoint('after-hold-void', row.id)
    return { valueTransferId: null, booked: {} }
  }
  const clearing = await ledger.ensureAccount(tx, 'chain', s.chainKey, row.coin)
  const to = [{ account: clearing, amount: BigInt(row.amount) }]
  for (const p of postings)
    to.push({
      account: await ledger.ensureAccount(tx, p.accountKind as OpenAccountKind, p.accountOwnerId, row.coin),
      amount: BigInt(p.amount),
    })
  const posted = await ledger.post(tx, {
    hold: holdId,
    to,
    key: valueKey(row.id),
    kind: `outgoing.${row.purpose}`,
  })
  // A hold resolved under another key (never while the transfer was open) was refused by the
  // ledger; the same key (a settlement retried) answers the first post.
  if (posted.status !== 'posted' || !posted.transferId)
    throw new Error(`the hold ${holdId} of transfer ${row.id} was ${posted.status} before it settled`)
  await s.crashPoint('after-hold-post', row.id)
  const booked: Record<string, string> = {}
  for (const p of postings) {
    await outgoingRepo.setPostingBooked(tx, p, posted.transferId)
    booked[p.idempotencyKey] = posted.transferId
  }
  return { valueTransferId: posted.transferId, booked }
}
