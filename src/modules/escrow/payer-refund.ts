// Where an escrow's refund goes: to its payer's wallet, or, for a direct deposit (a public payment
// order), to the address its payer gave. A payer who gave only an email cannot be sent anything:
// the value stays on the escrow's account and is recorded for an operator to return.
import type { Tx } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import { directDepositRepo } from './direct-deposit-repo.ts'
import type { EscrowPayouts } from './payouts.ts'
import type { EscrowRow } from './release.ts'

/** The payer's wallet address, or how to get it (it may need a key made in `tx`). */
export type PayerWallet = string | (() => Promise<string>)

/**
 * The address a refund of this escrow goes to: the direct deposit's payer address, null when its
 * payer gave only an email, else the payer's wallet.
 */
export async function refundAddress(
  tx: Tx,
  escrow: { id: string },
  wallet: PayerWallet,
): Promise<string | null> {
  const order = await directDepositRepo.byEscrow(tx, escrow.id)
  if (order) return order.payerAddress
  return typeof wallet === 'string' ? wallet : wallet()
}

/** Records that `amount` of an email-only direct deposit waits for an operator's refund. */
export async function recordOperatorRefund(tx: Tx, clock: Clock, escrowId: string, amount: bigint) {
  await directDepositRepo.setOperatorRefund(tx, escrowId, amount, clock.now())
}

/**
 * Returns `amount` of the escrow (locked in `tx`) to its payer: a `refund` leg through the normal
 * payout path, or, for an email-only direct deposit, a record for an operator. `amount` is all the
 * escrow holds that nothing else is spoken for, so recording it (not adding it) is idempotent.
 */
export async function returnToPayer(
  deps: { clock: Clock; payouts: EscrowPayouts },
  tx: Tx,
  escrow: EscrowRow,
  amount: bigint,
  rate: string | null,
  wallet: PayerWallet,
): Promise<void> {
  if (amount <= 0n) return
  const to = await refundAddress(tx, escrow, wallet)
  if (to === null) return recordOperatorRefund(tx, deps.clock, escrow.id, amount)
  await deps.payouts.queue(tx, escrow, [{ kind: 'refund', to, amount }], rate)
}
