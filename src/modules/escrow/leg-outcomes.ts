// What settlement reports about an escrow's transfers, applied to the escrow's own records: each
// leg's status, failures and transaction, the collection's payout statuses and counters, and the
// escrow `released` once every leg is confirmed. Each handler runs once per report, in its own
// transaction; the ledger side (the value out of the escrow, a failed payment's hold back to the
// wallet) was booked by settlement with the outcome itself.
import type { Tx } from '../../db/index.ts'
import type { LegKind } from '../../db/tables/escrow.ts'
import { noticeMail } from '../../platform/mail/templates.ts'
import { formatUnits } from '../../platform/money/index.ts'
import type {
  OutcomeHandlers,
  TransferAttemptFailed,
  TransferEvent,
  TransferFailed,
  TransferSettled,
  TransferStarted,
} from '../settlement/types.ts'
import type { PayoutKind, PayoutsDeps } from './ports.ts'
import { escrowRepo } from './repo.ts'

export const PAYOUT_KINDS: Partial<Record<LegKind, PayoutKind>> = {
  payout: 'payout',
  fee: 'fee',
  platformFee: 'platformFee',
}

/** Handlers of the escrow's legs (`escrow.leg`). */
export function legOutcomes(deps: PayoutsDeps): OutcomeHandlers {
  /** The leg a report is about, only while that transfer is the leg's current one (a leg sent
   * again has a new transfer; reports of the earlier one change nothing). */
  const legOf = async (tx: Tx, e: TransferEvent) => {
    const leg = await escrowRepo.getLeg(tx, e.referenceId, true)
    if (!leg || leg.outgoingId !== e.transferId) return undefined
    const escrow = (await escrowRepo.get(tx, leg.escrowId))!
    return { leg, escrow, payout: PAYOUT_KINDS[leg.kind] }
  }

  /** A failed attempt counts on the collection (failed*Count) and shows `failed` until a retry
   * succeeds; the report of an attempt that arrives after the leg completed only counts on the leg. */
  const countFailure = async (tx: Tx, e: TransferAttemptFailed | TransferFailed) => {
    const found = await legOf(tx, e)
    if (!found) return undefined
    const { leg, escrow, payout } = found
    await escrowRepo.updateLeg(
      tx,
      leg.id,
      { failures: leg.failures + 1, lastError: e.error.slice(0, 500) },
      deps.clock.now(),
    )
    if (payout && leg.status !== 'completed')
      await deps.collections.recordPayout(tx, escrow.collectionId, payout, 'failed')
    return found
  }

  return {
    async started(tx: Tx, e: TransferStarted) {
      const found = await legOf(tx, e)
      // (a report that arrives after a later one moved the leg on changes nothing)
      if (found?.leg.status !== 'awaiting') return
      await escrowRepo.updateLeg(tx, found.leg.id, { status: 'processing' }, deps.clock.now())
      if (found.payout)
        await deps.collections.recordPayout(tx, found.escrow.collectionId, found.payout, 'processing')
    },

    async attemptFailed(tx: Tx, e: TransferAttemptFailed) {
      await countFailure(tx, e)
    },

    async settled(tx: Tx, e: TransferSettled) {
      const found = await legOf(tx, e)
      if (!found) return
      const { leg, escrow, payout } = found
      await escrowRepo.updateLeg(tx, leg.id, { status: 'completed', txHash: e.txHash }, deps.clock.now())
      if (leg.transactionId)
        await deps.transactions.update(tx, leg.transactionId, {
          status: 'completed',
          responseData: e.responseData,
          txHash: e.txHash,
        })
      if (payout) await deps.collections.recordPayout(tx, escrow.collectionId, payout, 'completed')
      await finishIfDone(deps, tx, escrow.id)
    },

    async failed(tx: Tx, e: TransferFailed) {
      const found = await countFailure(tx, e)
      if (!found) return
      await escrowRepo.updateLeg(
        tx,
        found.leg.id,
        { status: 'failed', lastError: e.error.slice(0, 500) },
        deps.clock.now(),
      )
      if (found.leg.transactionId)
        await deps.transactions.update(tx, found.leg.transactionId, {
          status: 'failed',
          responseData: e.responseData,
          ...(e.txHash ? { txHash: e.txHash } : {}),
        })
    },
  }
}

/** Every leg completed: a releasing escrow is released, its collection completed, the receiver told. */
async function finishIfDone(deps: PayoutsDeps, tx: Tx, escrowId: string) {
  const escrow = (await escrowRepo.get(tx, escrowId, true))!
  if (escrow.status !== 'releasing') return
  const legs = await escrowRepo.legs(tx, escrowId)
  if (legs.some((l) => l.status !== 'completed')) return
  const now = deps.clock.now()
  await escrowRepo.update(tx, escrow.id, { status: 'released', releasedAt: now }, now)
  await deps.collections.markEscrow(tx, escrow.collectionId, { state: 'released', escrowId: escrow.id })
  const receiver = escrow.receiverId ? await escrowRepo.userLive(tx, escrow.receiverId) : undefined
  if (receiver?.email) {
    const coin = deps.chain.coin(escrow.coin)
    const paid = legs.filter((l) => l.kind === 'payout').reduce((s, l) => s + BigInt(l.amount), 0n)
    await deps.jobs.enqueue(
      tx,
      'mail.send',
      noticeMail('escrow_released', receiver.email, 'An escrow payment was released to you', [
        receiver.firstName ? `Hello ${receiver.firstName},` : 'Hello,',
        `An escrow payment of ${formatUnits(paid, escrow.decimals)} ${coin.symbol} was released to your wallet.`,
      ]),
    )
  }
}

/** Handlers of in-app payments (`escrow.pay`): the payment's transaction record follows it (the
 * payment's hold was posted with its settlement, or voided with its failure). */
export function payOutcomes(deps: PayoutsDeps): OutcomeHandlers {
  const transactionOf = (e: TransferEvent) => String(e.meta.transactionId ?? '')
  return {
    async settled(tx: Tx, e: TransferSettled) {
      const transactionId = transactionOf(e)
      if (transactionId)
        await deps.transactions.update(tx, transactionId, {
          status: 'completed',
          responseData: e.responseData,
          txHash: e.txHash,
        })
    },
    async failed(tx: Tx, e: TransferFailed) {
      const transactionId = transactionOf(e)
      if (transactionId)
        await deps.transactions.update(tx, transactionId, { status: 'failed', responseData: e.responseData })
    },
  }
}
