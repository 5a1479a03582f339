// The platform's fees for operators: the overview per coin and the sweep to the cold address,
// audited as `fee.sweep` in the transaction that holds the amount and queues the transfer.
import type { FeeService } from '../fees/types.ts'
import type { AdminActor, AdminAudit } from './audit.ts'

export class AdminFees {
  constructor(private readonly deps: { fees: FeeService; audit: AdminAudit }) {}

  overview() {
    return this.deps.fees.overview()
  }

  sweep(
    actor: AdminActor,
    body: { coin: string; amount?: string | undefined; reason: string },
    requestKey?: string,
  ) {
    const { fees, audit } = this.deps
    return fees.sweep(actor.userId, { ...body, requestKey }, async (tx, s) => {
      await audit.record(tx, actor, {
        action: 'fee.sweep',
        targetType: 'fee_sweep',
        targetId: s.id,
        reason: body.reason,
        details: {
          coin: s.coin,
          amount: s.amount.toString(),
          sweepableBefore: s.sweepable.toString(),
          from: fees.feeAddress,
          to: s.to,
          transferId: s.transferId,
        },
      })
    })
  }
}
