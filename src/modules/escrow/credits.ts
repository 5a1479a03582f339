// Payments credited to escrow addresses. The deposit watcher reports each credited deposit with a
// `deposit.credited` job written in the transaction that credits it; here each is applied to its
// escrow exactly once (the report is marked handled in the same transaction), by that job and, to
// never answer from a stale state, first by every escrow operation that reads the payment state.
import { formatUnits } from '../../platform/money/index.ts'
import type { UserAddresses } from './addresses.ts'
import { returnToPayer } from './payer-refund.ts'
import type { EscrowPayouts } from './payouts.ts'
import type { DepositCredited, EscrowPorts } from './ports.ts'
import { escrowRepo } from './repo.ts'

export type CreditsDeps = Pick<
  EscrowPorts,
  'db' | 'clock' | 'chain' | 'ledger' | 'transactions' | 'collections' | 'events' | 'watcher'
> & { payouts: EscrowPayouts; addresses: UserAddresses }

export class EscrowCredits {
  constructor(private readonly deps: CreditsDeps) {}

  /** The deposit.credited job's handler. */
  onDepositCredited(report: DepositCredited): Promise<void> {
    return onDepositCredited(this.deps, report)
  }

  /** Applies what was credited to the escrow's address and not applied yet (see absorbCredits). */
  async absorb(escrowId: string): Promise<void> {
    await absorbCredits(this.deps, escrowId)
  }

  /**
   * The same for an escrow the caller has just read: true when there was something to apply (the
   * row may have changed and is to be read again), false when `row` is still the escrow's state.
   */
  absorbRead(row: { id: string; address: string; coin: string }): Promise<boolean> {
    return absorbCredits(this.deps, row.id, row)
  }
}

async function onDepositCredited(deps: CreditsDeps, report: DepositCredited) {
  if (report.ownerKind === 'escrow') {
    await absorbCredits(deps, report.ownerId)
    return
  }
  // A user's deposit: the report is handled, and the credit is a domain event (notification).
  // Value the platform sent to the address itself (gas for a transfer) has no transaction record
  // of the user's and is no deposit of theirs.
  await deps.db.transaction().execute(async (tx) => {
    const first = await deps.watcher.reports.markReported(tx, report.transferId)
    if (first && report.ownerKind === 'user' && report.transactionId !== null)
      await deps.events.emit(tx, {
        type: 'deposit.credited',
        actorId: null,
        audience: [report.ownerId],
        data: {
          transactionId: report.transactionId,
          coin: report.coin,
          amount: formatUnits(BigInt(report.amount), deps.chain.coin(report.coin).decimals),
          txHash: report.txHash,
        },
        key: `deposit.credited:${report.transferId}`,
      })
  })
}

/**
 * Applies the payments credited to the escrow's address that were not applied yet, each once. A
 * payment in the escrow's coin adds to `received`; reaching amountToPay makes the escrow paid.
 * What is not spoken for once the escrow is cancelled or its release has begun goes back to the
 * payer: its balance less what its legs still have to send (so a payment a cancellation or a
 * release already counted is never refunded twice).
 */
async function absorbCredits(
  deps: CreditsDeps,
  escrowId: string,
  read?: { id: string; address: string; coin: string },
): Promise<boolean> {
  const { db, watcher, ledger } = deps
  const row = read ?? (await escrowRepo.get(db, escrowId))
  if (!row || (await watcher.reports.unreported(db, row.address)).length === 0) return false
  // A refund's record carries the rate: read before the transaction (null when there is none).
  const rate = await deps.transactions.rateOf(row.coin)
  await db.transaction().execute(async (tx) => {
    const locked = (await escrowRepo.get(tx, escrowId, true))!
    const account = await ledger.ensureAccount(tx, 'escrow', locked.id, locked.coin)
    let received = BigInt(locked.received)
    for (const d of await watcher.reports.unreported(tx, locked.address)) {
      if (!(await watcher.reports.markReported(tx, d.transferId))) continue
      // Gas top-ups to the address are credited to the platform's account, not to the escrow.
      if (d.coin === locked.coin && d.accountId === account) received += d.amount
    }
    if (received === BigInt(locked.received)) return
    const now = deps.clock.now()
    const set: Parameters<typeof escrowRepo.update>[2] = { received }
    if (locked.status === 'waiting' && received >= BigInt(locked.amountToPay)) {
      set.status = 'paid'
      set.paidAt = now
      await deps.collections.markEscrow(tx, locked.collectionId, { state: 'paid', escrowId: locked.id })
    }
    await escrowRepo.update(tx, locked.id, set, now)
    if (locked.status !== 'cancelled' && locked.status !== 'releasing' && locked.status !== 'released') return
    const { free } = await deps.payouts.free(tx, locked, { account })
    await returnToPayer(deps, tx, locked, free, rate, () => deps.addresses.userAddress(tx, locked.payerId))
  })
  return true
}
