// A transfer's funding at its outcome, in the transaction that settles it (so the ledger and the
// chain never disagree in between). Every transfer from a custodial address is funded by one
// pending ledger hold of exactly its amount (withdrawals, in-app payments, escrow legs, fee
// sweeps): on success the hold is posted to the chain's clearing account, on failure it is
// voided. Exactly that hold, once. The platform signers (gas top-ups) send value outside the
// ledger: nothing is booked for them.
import type { Tx } from '../../../db/index.ts'
import type { OutgoingRow } from './repo.ts'
import type { SenderContext } from './types.ts'

/** The ledger key of the transfer that moves a settled transfer's value out of its funding. */
export const valueKey = (transferId: string) => `outgoing:${transferId}:value`

/** The ledger key of the void of a failed transfer's funding hold. */
export const voidKey = (transferId: string) => `outgoing:${transferId}:void`

/**
 * Posts (success) or voids (failure) the transfer's funding hold; answers the ledger transfer that
 * moved the value to the chain (null: nothing moved).
 */
export async function settleFunding(
  s: SenderContext,
  tx: Tx,
  row: OutgoingRow,
  outcome: 'completed' | 'failed',
  clearingOf: (coin: string) => Promise<string> = (coin) =>
    s.deps.ledger.ensureAccount(tx, 'chain', s.chainKey, coin),
): Promise<{ valueTransferId: string | null }> {
  const { ledger } = s.deps
  const holdId = row.fundingHoldId
  if (!holdId) {
    if (row.fromKind !== 'platform')
      throw new Error(`transfer ${row.id} from a custodial address has no funding hold`)
    return { valueTransferId: null }
  }
  if (outcome === 'failed') {
    await ledger.void(tx, { hold: holdId, key: voidKey(row.id) })
    await s.crashPoint('after-hold-void', row.id)
    return { valueTransferId: null }
  }
  const clearing = await clearingOf(row.coin)
  const posted = await ledger.post(tx, {
    hold: holdId,
    to: [{ account: clearing, amount: BigInt(row.amount) }],
    key: valueKey(row.id),
    kind: `outgoing.${row.purpose}`,
  })
  // A hold resolved under another key (never while the transfer was open) was refused by the
  // ledger; the same key (a settlement retried) answers the first post.
  if (posted.status !== 'posted' || !posted.transferId)
    throw new Error(`the hold ${holdId} of transfer ${row.id} was ${posted.status} before it settled`)
  await s.crashPoint('after-hold-post', row.id)
  return { valueTransferId: posted.transferId }
}
