// Cancelling an unpaid escrow: the escrow and its collection's link end, and what it already
// received goes back to its payer (a direct deposit's to the address its payer gave). Cancelling
// again sends a refund that ran out of retries once more.
import type { Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { UserAddresses } from './addresses.ts'
import type { EscrowCredits } from './credits.ts'
import { directDepositRepo } from './direct-deposit-repo.ts'
import { returnToPayer } from './payer-refund.ts'
import type { EscrowPayouts } from './payouts.ts'
import type { EscrowPorts } from './ports.ts'
import { escrowRepo } from './repo.ts'

export type CancelDeps = Pick<
  EscrowPorts,
  'db' | 'clock' | 'ledger' | 'transactions' | 'collections' | 'halts'
> & {
  payouts: EscrowPayouts
  addresses: UserAddresses
  credits: Pick<EscrowCredits, 'absorb'>
}

export class EscrowCancellation {
  constructor(private readonly deps: CancelDeps) {}

  /**
   * Cancels the escrow (the caller is its payer, already checked). `inTx` runs in the cancelling
   * transaction.
   */
  async cancel(
    escrow: { id: string; coin: string; payerId: string },
    inTx?: (tx: Tx) => Promise<void>,
  ): Promise<{ message: string }> {
    const { db, clock, payouts, collections, ledger } = this.deps
    await this.deps.halts.assertNotHalted(escrow.coin)
    await this.deps.credits.absorb(escrow.id)
    const payerAddress = await db
      .transaction()
      .execute((tx) => this.deps.addresses.userAddress(tx, escrow.payerId))
    const rate = await this.deps.transactions.rateOf(escrow.coin)
    return db.transaction().execute(async (tx) => {
      const locked = (await escrowRepo.get(tx, escrow.id, true))!
      if (locked.status === 'cancelled') {
        // A refund that ran out of retries has no other way out of the escrow's account.
        if ((await payouts.retryFailed(tx, locked)) > 0)
          return { message: 'The refund that failed earlier is being sent again' }
        throw errors.named('ESCROW_CANCELLED', 'This escrow is already cancelled')
      }
      if (locked.status !== 'waiting')
        throw errors.named('ESCROW_ALREADY_PAID', 'A paid escrow cannot be cancelled; release it instead')
      const now = clock.now()
      await escrowRepo.update(tx, locked.id, { status: 'cancelled', cancelledAt: now }, now)
      await collections.markEscrow(tx, locked.collectionId, { state: 'cancelled', escrowId: locked.id })
      const balance = await ledger.balance(tx, 'escrow', locked.id, locked.coin)
      await returnToPayer(this.deps, tx, locked, balance, rate, payerAddress)
      if (inTx) await inTx(tx)
      // A public payment order's money goes back to its own payer, not to the caller's wallet.
      const to = (await directDepositRepo.byEscrow(tx, locked.id)) ? 'the payer' : 'your wallet'
      return {
        message:
          balance > 0n
            ? `Escrow cancelled; the amount received is being returned to ${to}`
            : 'Escrow cancelled',
      }
    })
  }
}
