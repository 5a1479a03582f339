// What settlement reports about a sweep's transfer, applied to the sweep: each failed attempt, and
// the outcome (confirmed with its transaction, or failed). Each handler runs once per report, in
// its own transaction. The money moved with the outcome itself: settlement posted the sweep's hold
// (the amount out of the fee account to the chain) or voided it (all of it available again).
import type { Logger } from 'pino'
import type { Clock } from '../../platform/clock.ts'
import type { OutcomeHandlers } from '../settlement/types.ts'
import { feeRepo } from './repo.ts'

export const FEE_SWEEP_PURPOSE = 'fee.sweep'

export function sweepOutcomes(deps: { clock: Clock; log: Logger }): OutcomeHandlers {
  const { clock, log } = deps
  /** The sweep, locked, while its outcome is still open. */
  const open = async (tx: Parameters<OutcomeHandlers['settled']>[0], id: string) => {
    const sweep = await feeRepo.get(tx, id, true)
    return sweep?.status === 'pending' ? sweep : undefined
  }
  return {
    async attemptFailed(tx, e) {
      const sweep = await open(tx, e.referenceId)
      if (!sweep) return
      await feeRepo.update(tx, sweep.id, {
        failures: sweep.failures + 1,
        lastError: e.error.slice(0, 500),
        updatedAt: clock.now(),
      })
    },

    async settled(tx, e) {
      const sweep = await open(tx, e.referenceId)
      if (!sweep) return
      const now = clock.now()
      await feeRepo.update(tx, sweep.id, {
        status: 'confirmed',
        txHash: e.txHash,
        updatedAt: now,
        settledAt: now,
      })
      log.info(
        {
          sweepId: sweep.id,
          transferId: e.transferId,
          coin: e.coin,
          amount: e.amount,
          to: e.to,
          txHash: e.txHash,
        },
        'fee sweep confirmed',
      )
    },

    async failed(tx, e) {
      const sweep = await open(tx, e.referenceId)
      if (!sweep) return
      const now = clock.now()
      await feeRepo.update(tx, sweep.id, {
        status: 'failed',
        failures: sweep.failures + 1,
        lastError: e.error.slice(0, 500),
        ...(e.txHash ? { txHash: e.txHash } : {}),
        updatedAt: now,
        settledAt: now,
      })
      log.warn(
        { sweepId: sweep.id, transferId: e.transferId, coin: e.coin, amount: e.amount, error: e.error },
        'fee sweep failed; its hold was released',
      )
    },
  }
}
