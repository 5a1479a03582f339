// Reconciliation for operators: the latest runs with their per-coin totals, the halted coins, a
// run on demand, and halting or resuming a coin by hand (each audited).
import type { Db } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { CoinService } from '../payment/types.ts'
import type { Halts, Reconciler } from '../settlement/types.ts'
import type { AdminActor, AdminAudit } from './audit.ts'

export class AdminReconciliation {
  constructor(
    private readonly deps: {
      db: Db
      halts: Halts
      reconciliation: Reconciler
      coins: Pick<CoinService, 'format'> & { listAll(): Promise<{ reference: string }[]> }
      audit: AdminAudit
    },
  ) {}

  async report(limit: number) {
    const [halts, runs] = await Promise.all([this.deps.halts.list(), this.deps.reconciliation.latest(limit)])
    return {
      halts,
      runs: runs.map((r) => ({
        id: r.id,
        status: r.status,
        block: r.blockNumber === null ? null : String(r.blockNumber),
        violations: r.violations ?? [],
        error: r.error,
        startedAt: r.startedAt,
        finishedAt: r.finishedAt,
        coins: r.results.map((c) => ({
          coin: c.coin,
          ledgerTotal: String(c.ledgerTotal),
          chainTotal: String(c.chainTotal),
          drift: String(c.drift),
          checked: c.addressesChecked,
          skipped: c.addressesSkipped,
          mismatches: c.mismatches ?? [],
        })),
      })),
    }
  }

  /** Runs the checks now; the run and its audit row are stored (the run by itself, as the job does). */
  async run(actor: AdminActor, reason: string) {
    const run = await this.deps.reconciliation.runNow()
    await this.deps.db.transaction().execute((tx) =>
      this.deps.audit.record(tx, actor, {
        action: 'reconciliation.run',
        targetType: 'reconciliation',
        targetId: run.id,
        reason,
        details: { status: run.status, halted: run.halted },
      }),
    )
    return run
  }

  async #known(coin: string) {
    const ref = coin.trim().toLowerCase()
    if (!(await this.deps.coins.listAll()).some((c) => c.reference === ref))
      throw errors.field('/coin', `unknown coin reference "${coin.slice(0, 40)}"`)
    return ref
  }

  /** Halts a coin by hand: nothing is credited or sent in it until it is resumed. */
  async halt(actor: AdminActor, coin: string, reason: string) {
    const ref = await this.#known(coin)
    return this.deps.db.transaction().execute(async (tx) => {
      const halted = await this.deps.halts.halt(tx, {
        coin: ref,
        reason: 'manual',
        details: { reason },
        by: actor.userId,
      })
      if (!halted) throw errors.named('COIN_ALREADY_IN_STATE', 'The coin is halted already')
      await this.deps.audit.record(tx, actor, {
        action: 'coin.halt',
        targetType: 'coin',
        targetId: ref,
        reason,
      })
      const open = await this.deps.halts.list(tx)
      return open.find((h) => h.coin === ref)!
    })
  }

  async resume(actor: AdminActor, coin: string, reason: string) {
    const ref = await this.#known(coin)
    return this.deps.db.transaction().execute(async (tx) => {
      const halt = await this.deps.halts.resume(ref, actor.userId, reason, tx)
      await this.deps.audit.record(tx, actor, {
        action: 'coin.resume',
        targetType: 'coin',
        targetId: ref,
        reason,
        details: { haltId: halt.id, haltReason: halt.reason },
      })
      return halt
    })
  }
}
