// Deep chain reorganisations for operators: the deposits a reorganisation took back (findings),
// and reversing or keeping each, with the audit row in the action's own transaction.
import type { ReorgFindingStatus } from '../../db/tables/reorgs.ts'
import type { ReorgFinding, ReorgRepairs } from '../settlement/types.ts'
import type { AdminActor, AdminAudit } from './audit.ts'

export class AdminReorgs {
  constructor(
    private readonly deps: {
      reorgs: Pick<ReorgRepairs, 'list' | 'reverse' | 'keep'>
      decimals: (coin: string) => number | null
      audit: AdminAudit
    },
  ) {}

  #view = ({ id, ...f }: ReorgFinding) => ({
    _id: id,
    ...f,
    decimals: this.deps.decimals(f.coin),
    actions: { reverse: f.status === 'open', keep: f.status === 'open' },
  })

  async list(q: { status?: ReorgFindingStatus | undefined; page: number; limit: number }) {
    const { total, rows } = await this.deps.reorgs.list(q)
    return {
      page: q.page,
      pages: Math.ceil(total / q.limit),
      limit: q.limit,
      total,
      data: rows.map(this.#view),
    }
  }

  async reverse(actor: AdminActor, id: string, reason: string) {
    const done = await this.deps.reorgs.reverse(id, actor.userId, reason, async (tx, f) => {
      await this.deps.audit.record(tx, actor, {
        action: 'reorg.reverse',
        targetType: 'reorg',
        targetId: id,
        reason,
        details: {
          coin: f.coin,
          amount: f.amount,
          txHash: f.txHash,
          owner: `${f.ownerKind}:${f.ownerId}`,
          held: f.held,
          loss: f.shortfall,
          reversalTransferId: f.reversalTransferId,
          lossTransferId: f.lossTransferId,
        },
      })
    })
    return this.#view(done)
  }

  async keep(actor: AdminActor, id: string, reason: string) {
    const done = await this.deps.reorgs.keep(id, actor.userId, reason, async (tx, f) => {
      await this.deps.audit.record(tx, actor, {
        action: 'reorg.keep',
        targetType: 'reorg',
        targetId: id,
        reason,
        details: { coin: f.coin, amount: f.amount, txHash: f.txHash, owner: `${f.ownerKind}:${f.ownerId}` },
      })
    })
    return this.#view(done)
  }
}
