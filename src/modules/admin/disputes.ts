// Disputes for operators: every dispute with its evidence and the escrow still held, and the
// arbiter's decision (work's own service call), audited in the decision's transaction. The split is
// paid to both parties by work's split job through the escrow's normal legs.
import type { DisputeService } from '../work/types.ts'
import type { AdminActor, AdminAudit } from './audit.ts'

export class AdminDisputes {
  constructor(private readonly deps: { disputes: DisputeService; audit: AdminAudit }) {}

  list(f: Parameters<DisputeService['listAll']>[0]) {
    return this.deps.disputes.listAll(f)
  }

  decide(
    actor: AdminActor,
    collectionId: string,
    input: {
      creatorAmount: number | string
      ownerAmount: number | string
      note?: string | undefined
      reason: string
    },
  ) {
    const { reason, note, creatorAmount, ownerAmount } = input
    return this.deps.disputes.decide(
      actor.userId,
      collectionId,
      { creatorAmount, ownerAmount, ...(note === undefined ? {} : { note }) },
      async (tx, disputeId) => {
        await this.deps.audit.record(tx, actor, {
          action: 'dispute.decide',
          targetType: 'dispute',
          targetId: disputeId,
          reason,
          details: { collectionId, creatorAmount, ownerAmount, note: note ?? '' },
        })
      },
    )
  }
}
