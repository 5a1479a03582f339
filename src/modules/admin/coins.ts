// Coins for operators: every configured coin with its state (active, halted) and USD rate, and the
// settings an operator changes at run time: activate, deactivate, a static USD rate (or back to the
// configured one). Each change is audited in the transaction that writes it, and every API process
// re-reads the settings when it commits (payment's `coins_changed` notification), so the next
// request anywhere sees it.
import type { Db } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { PaymentService } from '../payment/service.ts'
import type { Halts } from '../settlement/reconcile/halts.ts'
import type { AdminActor, AdminAudit } from './audit.ts'

const RATE = /^(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,18})?$/

export class AdminCoins {
  constructor(
    private readonly deps: {
      db: Db
      coins: PaymentService
      halts: Pick<Halts, 'list'>
      audit: AdminAudit
    },
  ) {}

  async list() {
    const [all, halts] = await Promise.all([this.deps.coins.listAll(), this.deps.halts.list()])
    const halted = new Set(halts.map((h) => h.coin))
    return all.map((c) => this.#view(c.reference, halted.has(c.reference)))
  }

  #view(reference: string, halted: boolean) {
    const { coins } = this.deps
    const c = coins.configured(reference)!
    const now = coins.listAllSync().find((x) => x.reference === reference)!
    const s = coins.setting(reference)
    return {
      reference,
      name: c.name,
      symbol: c.symbol,
      decimals: c.decimals,
      isToken: c.isToken,
      contractAddress: c.contractAddress ?? null,
      active: now.active,
      configuredActive: c.active,
      usdRate: s?.usdRate ?? c.usdRate,
      configuredUsdRate: c.usdRate,
      rateSet: !!s?.usdRate,
      halted,
      updatedBy: s?.updatedBy ?? null,
      updatedAt: s?.updatedAt ?? null,
    }
  }

  async #one(reference: string) {
    const halts = await this.deps.halts.list()
    return this.#view(
      reference,
      halts.some((h) => h.coin === reference),
    )
  }

  #known(coin: string) {
    const ref = coin.trim().toLowerCase()
    if (!this.deps.coins.configured(ref))
      throw errors.field('/coin', `unknown coin reference "${coin.slice(0, 40)}"`)
    return ref
  }

  /** Activates or deactivates a coin: an inactive coin takes no new deposits to wallets, withdrawals
   * or escrow payments (answers 400 as an unknown coin); what is under way still settles. */
  async setActive(actor: AdminActor, coin: string, active: boolean, reason: string) {
    const ref = this.#known(coin)
    const c = this.deps.coins.configured(ref)!
    if (!active && !c.isToken)
      throw errors.conflict('The native coin pays the gas of every transfer: it cannot be deactivated')
    const before = (await this.deps.coins.listAll()).find((x) => x.reference === ref)!.active
    if (before === active) throw errors.conflict(`The coin is ${active ? 'active' : 'inactive'} already`)
    await this.deps.db.transaction().execute(async (tx) => {
      await this.deps.coins.saveSetting(tx, ref, { active }, actor.userId)
      await this.deps.audit.record(tx, actor, {
        action: active ? 'coin.activate' : 'coin.deactivate',
        targetType: 'coin',
        targetId: ref,
        reason,
      })
    })
    await this.deps.coins.reload()
    return this.#one(ref)
  }

  /** Sets a static USD rate for the coin (it wins over the configured rate or the feed), or with
   * `null` goes back to the rate source. */
  async setRate(actor: AdminActor, coin: string, usdRate: string | null, reason: string) {
    const ref = this.#known(coin)
    if (usdRate !== null && (!RATE.test(usdRate) || /^0(?:\.0+)?$/.test(usdRate)))
      throw errors.field('/usdRate', 'must be a positive decimal number of USD per whole coin, e.g. "25.40"')
    const before = this.deps.coins.setting(ref)?.usdRate ?? null
    await this.deps.db.transaction().execute(async (tx) => {
      await this.deps.coins.saveSetting(tx, ref, { usdRate }, actor.userId)
      await this.deps.audit.record(tx, actor, {
        action: 'coin.rate',
        targetType: 'coin',
        targetId: ref,
        reason,
        details: { usdRate, before },
      })
    })
    await this.deps.coins.reload()
    return this.#one(ref)
  }
}
