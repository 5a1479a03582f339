// Paying out the escrow of a job that ended without a normal completion: a cancelled job (all of
// it back to the creator, or a share to the talent) and a dispute settled by both parties or
// decided by an arbiter. The talent's share is a release part through the normal legs (payout,
// network fee, platform fee: the fee is charged on that share only); the rest (with the rest of
// the fee and any overpayment) goes back to the payer's wallet as a refund leg. Every step is
// idempotent under `key`, so the job that runs it may run it again after a crash.
import { AppError, errors } from '../../http/errors.ts'
import { shareOf } from '../../platform/money/index.ts'
import type { EscrowCancellation } from './cancel.ts'
import type { EscrowCredits } from './credits.ts'
import type { EscrowPorts } from './ports.ts'
import { type RefundDeps, refundRest } from './refund.ts'
import type { EscrowRelease } from './release.ts'
import { escrowRepo } from './repo.ts'

/** The talent's share: fixed cents of the escrowed price, or a percentage of what remains. */
export type SplitWant = { ownerCents: bigint } | { ownerPercent: number }

export interface SplitResult {
  /** `cancelled`: the escrow was never paid (it is cancelled; what it received went back) */
  outcome: 'cancelled' | 'paid'
  /** USD cents of the price released to the receiver by this split */
  ownerCents: bigint
  /** USD cents of the price returned to the payer */
  creatorCents: bigint
}

export type SplitDeps = RefundDeps & {
  halts: EscrowPorts['halts']
  credits: Pick<EscrowCredits, 'absorb'>
  release: Pick<EscrowRelease, 'release'>
  cancellation: Pick<EscrowCancellation, 'cancel'>
}

export class EscrowDisputeSplit {
  constructor(private readonly deps: SplitDeps) {}

  /** The escrow's status and what of its price (USD cents) is not released yet. */
  async splitState(escrowId: string) {
    const row = await escrowRepo.get(this.deps.db, escrowId)
    if (!row) throw errors.notFound('escrow')
    return {
      status: row.status,
      payerId: row.payerId,
      coin: row.coin,
      escrowCents: BigInt(row.escrowCents),
      remainingCents: BigInt(row.escrowCents) - BigInt(row.releasedCents),
    }
  }

  async settleSplit(escrowId: string, want: SplitWant, key: string): Promise<SplitResult> {
    const { deps } = this
    const { db } = deps
    const first = await escrowRepo.get(db, escrowId)
    if (!first) throw errors.notFound('escrow')
    await deps.halts.assertNotHalted(first.coin)
    await deps.credits.absorb(escrowId)
    let row = (await escrowRepo.get(db, escrowId))!
    const wantsOwner = 'ownerCents' in want ? want.ownerCents > 0n : want.ownerPercent > 0
    if (row.status === 'waiting') {
      if (wantsOwner)
        throw errors.named('ESCROW_NOT_FUNDED', 'The escrow is not paid: nothing can be released from it')
      try {
        await deps.cancellation.cancel(row)
      } catch (err) {
        // Paid in the meantime: split it as a paid escrow.
        if (
          !(
            err instanceof AppError &&
            (err.code === 'ESCROW_ALREADY_PAID' || err.code === 'ESCROW_CANCELLED')
          )
        )
          throw err
      }
      row = (await escrowRepo.get(db, escrowId))!
    }
    if (row.status === 'cancelled' && !row.paidAt)
      return { outcome: 'cancelled', ownerCents: 0n, creatorCents: 0n }
    const ownerKey = `${key}:owner`
    const done = await escrowRepo.releaseByKey(db, escrowId, ownerKey)
    let ownerCents = done ? BigInt(done.cents) : 0n
    if (!done && row.status === 'paid') {
      const remaining = BigInt(row.escrowCents) - BigInt(row.releasedCents)
      ownerCents =
        'ownerCents' in want ? want.ownerCents : shareOf(remaining, BigInt(want.ownerPercent), 100n)
      if (ownerCents > remaining)
        throw errors.named('SPLIT_EXCEEDS_ESCROW', 'The talent’s share is more than what remains in escrow')
      if (ownerCents > 0n) {
        await deps.release.release(row, { cents: ownerCents, key: ownerKey, settlement: true })
        row = (await escrowRepo.get(db, escrowId))!
      }
    }
    const creatorCents = BigInt(row.escrowCents) - BigInt(row.releasedCents)
    if (row.status === 'paid' && creatorCents > 0n)
      await refundRest(deps, escrowId, ownerCents > 0n ? 'releasing' : 'cancelled')
    return { outcome: 'paid', ownerCents, creatorCents }
  }
}
