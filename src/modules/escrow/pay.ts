// Paying an escrow from the payer's in-app wallet (an addition to the spec).
import type { Tx } from '../../db/index.ts'
import { AppError, errors } from '../../http/errors.ts'
import type { EscrowPayouts } from './payouts.ts'
import type { EscrowPorts } from './ports.ts'
import { type EscrowRow, escrowRepo } from './repo.ts'
import type { PayInput } from './schemas.ts'

export type PayDeps = Pick<EscrowPorts, 'db' | 'transactions' | 'confirmPassword' | 'verifySensitiveCode'> & {
  payouts: EscrowPayouts
}

/**
 * Pays an escrow from the payer's in-app wallet: what is still missing of amountToPay moves on
 * chain from the payer's address to the escrow address. Needs the account password, and the
 * two-factor code when two-factor login is on (as for withdrawals).
 */
export async function payFromWallet(deps: PayDeps, row: EscrowRow, userId: string, input: PayInput) {
  const { db } = deps
  const user = await deps.confirmPassword(userId, input.password, 'escrow.pay', null)
  if (user.twoFaEnabled && !input.code)
    throw errors.field('/code', 'the two-factor code is required when two-factor login is on')
  const rate = await deps.transactions.rateOf(row.coin)
  const write = async (tx: Tx) => {
    const locked = (await escrowRepo.get(tx, row.id, true))!
    if (locked.status !== 'waiting')
      throw errors.named('ESCROW_NOT_AWAITING_PAYMENT', 'This escrow is not awaiting payment')
    if (await deps.payouts.payUnderWay(tx, locked))
      throw errors.named('ESCROW_PAYMENT_IN_PROGRESS', 'A payment of this escrow is already under way')
    const missing = BigInt(locked.amountToPay) - BigInt(locked.received)
    if (missing <= 0n) throw errors.named('ESCROW_ALREADY_PAID', 'This escrow is already paid')
    // The hold checks the wallet's available balance under the wallet's row lock.
    try {
      await deps.payouts.pay(tx, locked, missing, rate)
    } catch (err) {
      if (err instanceof AppError && err.code === 'INSUFFICIENT_BALANCE')
        throw errors.insufficientBalance('Your wallet holds less than the amount to pay')
      throw err
    }
    return {
      message: 'Payment sent from your wallet; the escrow is paid once the transfer is confirmed',
    }
  }
  if (user.twoFaEnabled) return deps.verifySensitiveCode(userId, input.code!, write)
  return db.transaction().execute(write)
}
