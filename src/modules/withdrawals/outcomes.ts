// What settlement reports about a withdrawal's transfer, applied to the withdrawal: `processing`
// when a worker picks it up, each failed attempt (`retryCount`, `errMsg`), and the outcome (status,
// transaction records, the user's mail). Each handler runs once per report, in its own
// transaction. The amount moved with the outcome itself: settlement posted the transfer's funding
// hold to the chain or voided it. The fee is the withdrawal's own hold, resolved here with the
// withdrawal's status, in the same transaction: posted to the sending address's treasury account
// (platform value there, which pays the gas of later sends) on success, voided on failure. Until
// the report runs the fee stays held, so after a success the wallet's available balance is the
// same before and after it; after a failure the fee is available again with the failed status.
import type { Tx } from '../../db/index.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import { noticeMail } from '../../platform/mail/templates.ts'
import { formatUnits } from '../../platform/money/index.ts'
import type { EventService } from '../events/types.ts'
import type { Ledger } from '../ledger/types.ts'
import type { OutcomeHandlers } from '../settlement/types.ts'
import type { TransactionService } from '../transactions/types.ts'
import { withdrawalRepo } from './repo.ts'

/** The key of the hold that reserves a withdrawal's fee. */
export const feeHoldKey = (withdrawalId: string) => `withdrawal:${withdrawalId}:fee-hold`
/** The key of the posting of a withdrawal's fee hold (and, for withdrawals settled before fees had
 * holds of their own, of the posting settlement booked with the outcome). */
export const feeKey = (withdrawalId: string) => `withdrawal:${withdrawalId}:fee`
/** The key of the void of a failed withdrawal's fee hold. */
export const feeVoidKey = (withdrawalId: string) => `withdrawal:${withdrawalId}:fee-void`

export function withdrawalOutcomes(deps: {
  clock: Clock
  chain: ChainAdapter
  jobs: JobQueue
  ledger: Ledger
  transactions: TransactionService
  events: EventService
}): OutcomeHandlers {
  const { clock, jobs, ledger, transactions } = deps
  /** The withdrawal, locked, while its outcome is still open. */
  const open = async (tx: Tx, id: string) => {
    const row = await withdrawalRepo.lockWithOwner(tx, id)
    if (!row || row.status === 'completed' || row.status === 'failed') return undefined
    const { ownerEmail, ownerFirstName, ...w } = row
    // Inactive coins still settle: read the chain's configuration, not the active list.
    const coin = deps.chain.coin(w.coin)
    const hello = ownerFirstName ? `Hello ${ownerFirstName},` : 'Hello,'
    const amountText = `${formatUnits(BigInt(w.amount), coin.decimals)} ${coin.symbol}`
    return { w, coin, email: ownerEmail ?? undefined, hello, amountText }
  }

  return {
    async started(tx, e) {
      await withdrawalRepo.update(tx, clock.now(), e.referenceId, { status: 'processing' }, ['pending'])
    },

    async attemptFailed(tx, e) {
      await withdrawalRepo.recordFailure(tx, clock.now(), e.referenceId, e.error)
    },

    async settled(tx, e) {
      const found = await open(tx, e.referenceId)
      if (!found) return
      const { w, coin } = found
      const fee = BigInt(w.fee)
      // The fee's hold posted to the platform value at the sending address. (A withdrawal settled
      // before fees had holds of their own: settlement booked it, and its report names the posting.)
      let feeTransferId = e.booked?.[feeKey(w.id)] ?? null
      if (w.feeHoldId) {
        const treasury = await ledger.ensureAccount(tx, 'treasury', e.from.toLowerCase(), w.coin)
        // The treasury account before the wallet's (which the post locks with it): the order in
        // which settlement takes them (the address's gas, then the amount's hold), so that this
        // report and the settlement of the address's next transfer never wait on each other.
        await ledger.account(tx, treasury, { forUpdate: true })
        const posted = await ledger.post(tx, {
          hold: w.feeHoldId,
          to: [{ account: treasury, amount: fee }],
          key: feeKey(w.id),
          kind: 'withdrawal.fee',
          description: `Network fee of withdrawal ${w.id}`,
        })
        feeTransferId = posted.transferId
      }
      // The fee's record is written by the withdrawal's update.
      const feeRecord =
        fee > 0n
          ? await transactions.recordWrite(tx, {
              ownerId: w.ownerId,
              coin: w.coin,
              amount: fee,
              type: 'withdrawal',
              method: 'fee',
              status: 'completed',
              description: `Network fee of ${formatUnits(fee, coin.decimals)} ${coin.symbol} for withdrawal ${w.id}`,
              isFee: true,
              transferId: feeTransferId,
              txHash: e.txHash,
              rate: w.usdRate,
            })
          : undefined
      await withdrawalRepo.update(
        tx,
        clock.now(),
        w.id,
        { status: 'completed', txHash: e.txHash },
        undefined,
        feeRecord ? [feeRecord.write] : [],
      )
      await deps.events.emit(tx, {
        type: 'withdrawal.sent',
        actorId: null,
        audience: [w.ownerId],
        data: {
          withdrawalId: w.id,
          coin: w.coin,
          amount: formatUnits(BigInt(w.amount), coin.decimals),
          txHash: e.txHash,
        },
        key: `withdrawal.sent:${w.id}`,
      })
      if (w.transactionId)
        await transactions.update(tx, w.transactionId, {
          status: 'completed',
          responseData: e.responseData,
          txHash: e.txHash,
          ...(e.valueTransferId ? { transferId: e.valueTransferId } : {}),
        })
      if (found.email)
        await jobs.enqueue(
          tx,
          'mail.send',
          noticeMail('withdrawal_completed', found.email, 'Your withdrawal was sent', [
            found.hello,
            `Your withdrawal of ${found.amountText} to ${w.address} was sent.`,
            `Transaction: ${e.txHash}`,
          ]),
        )
    },

    async failed(tx, e) {
      const found = await open(tx, e.referenceId)
      if (!found) return
      const { w } = found
      const now = clock.now()
      // Nothing was sent: the fee's hold goes back with the amount's (voided by settlement).
      if (w.feeHoldId) await ledger.void(tx, { hold: w.feeHoldId, key: feeVoidKey(w.id) })
      // The report of the outcome is also the report of the last failed attempt, unless an
      // operator cancelled it: that was no attempt, so the count stays the transfer's.
      await withdrawalRepo.recordFailure(tx, now, w.id, e.error, e.code !== 'CANCELLED')
      await withdrawalRepo.update(tx, now, w.id, {
        status: 'failed',
        ...(e.txHash ? { txHash: e.txHash } : {}),
      })
      await deps.events.emit(tx, {
        type: 'withdrawal.failed',
        actorId: null,
        audience: [w.ownerId],
        data: {
          withdrawalId: w.id,
          coin: w.coin,
          amount: formatUnits(BigInt(w.amount), found.coin.decimals),
          reason: e.error,
        },
        key: `withdrawal.failed:${w.id}`,
      })
      if (w.transactionId)
        await transactions.update(tx, w.transactionId, {
          status: 'failed',
          responseData: e.responseData,
          ...(e.txHash ? { txHash: e.txHash } : {}),
        })
      if (found.email)
        await jobs.enqueue(
          tx,
          'mail.send',
          noticeMail('withdrawal_failed', found.email, 'Your withdrawal failed', [
            found.hello,
            `Your withdrawal of ${found.amountText} to ${w.address} could not be sent: ${e.error}.`,
            'The amount and the fee are back in your wallet.',
          ]),
        )
    },
  }
}
