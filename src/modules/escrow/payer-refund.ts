// Where an escrow's refund goes: to its payer's wallet, or, for a direct deposit (a public payment
// order), to the address its payer gave. A payer who gave only an email cannot be sent anything:
// the value stays on the escrow's account and is recorded for an operator to return.
import type { Tx } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import { directDepositRepo } from './direct-deposit-repo.ts'
import type { EscrowPayouts, PlannedLeg } from './payouts.ts'
import type { EscrowRow } from './repo.ts'

/** The payer's wallet address, or how to get it (it may need a key made in `tx`). */
export type PayerWallet = string | (() => Promise<string>)

/**
 * The `refund` leg returning `amount` of the escrow (locked in `tx`) to its payer: to the payer's
 * wallet, or to the address a direct deposit's payer gave (no transaction record: that payer has
 * no account here). Null when that payer gave only an email: `amount` is then recorded for an
 * operator. `amount` is all the escrow holds that nothing else is spoken for, so recording it
 * (not adding it) is idempotent.
 */
export async function refundLeg(
  tx: Tx,
  clock: Clock,
  escrow: { id: string },
  amount: bigint,
  wallet: PayerWallet,
): Promise<PlannedLeg | null> {
  if (amount <= 0n) return null
  const order = await directDepositRepo.byEscrow(tx, escrow.id)
  if (!order) return { kind: 'refund', to: typeof wallet === 'string' ? wallet : await wallet(), amount }
  if (order.payerAddress) return { kind: 'refund', to: order.payerAddress, amount, record: false }
  await directDepositRepo.setOperatorRefund(tx, escrow.id, amount, clock.now())
  return null
}

/** Returns `amount` of the escrow (locked in `tx`) to its payer (see refundLeg) through the payout path. */
export async function returnToPayer(
  deps: { clock: Clock; payouts: EscrowPayouts },
  tx: Tx,
  escrow: EscrowRow,
  amount: bigint,
  rate: string | null,
  wallet: PayerWallet,
): Promise<void> {
  const leg = await refundLeg(tx, deps.clock, escrow, amount, wallet)
  if (leg) await deps.payouts.queue(tx, escrow, [leg], rate)
}
