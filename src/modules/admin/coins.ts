// Coins for operators: every coin with its state (active, halted) and USD rate, the settings an
// operator changes at run time (activate, deactivate, a static USD rate or back to the configured
// one), and ERC-20 tokens added at run time. Each change is audited in the transaction that writes
// it, and every process re-reads the coins when it commits (payment's `coins_changed`
// notification), so the next request anywhere sees it; chain reads happen before that transaction.
import { getAddress, isAddress } from 'viem'
import type { Db } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import { type ChainAdapter, ChainError } from '../../platform/chain/types.ts'
import type { PaymentService } from '../payment/types.ts'
import type { Halts } from '../settlement/types.ts'
import type { AdminActor, AdminAudit } from './audit.ts'

const RATE = /^(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,18})?$/
const REFERENCE = /^[a-z0-9][a-z0-9._-]{0,31}$/
/** a decimal string above 0 */
const positive = (rate: string | null | undefined): rate is string =>
  !!rate && RATE.test(rate) && !/^0(?:\.0+)?$/.test(rate)

/** A token to add, as the admin API takes it. */
export interface AddCoinInput {
  symbol: string
  reference?: string | undefined
  name: string
  contractAddress: string
  decimals?: number | undefined
  chain: string
  icon?: string | undefined
  rate?: string | undefined
  active?: boolean | undefined
}

export class AdminCoins {
  constructor(
    private readonly deps: {
      db: Db
      coins: PaymentService
      chain: Pick<ChainAdapter, 'chainId' | 'isContract' | 'tokenInfo'>
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
    const added = coins.addition(reference)
    const configuredRate = positive(c.usdRate) ? c.usdRate : null
    return {
      reference,
      name: c.name,
      symbol: c.symbol,
      decimals: c.decimals,
      isToken: c.isToken,
      contractAddress: c.contractAddress ?? null,
      active: now.active,
      configuredActive: c.active,
      usdRate: s?.usdRate ?? configuredRate,
      configuredUsdRate: added ? null : c.usdRate,
      rateSet: !!s?.usdRate,
      halted,
      updatedBy: s?.updatedBy ?? null,
      updatedAt: s?.updatedAt ?? null,
      addedBy: added?.by ?? null,
      addedAt: added?.at ?? null,
    }
  }

  /**
   * Without a price feed a coin's only price is a static rate: an active coin without one would
   * make every wallet view answer 503 (the one rule for a price that cannot be had). With a feed,
   * the feed is trusted to price it.
   */
  #assertPriced(reference: string, after: { active: boolean; usdRate: string | null }) {
    if (!this.deps.coins.staticRates || !after.active || positive(after.usdRate)) return
    throw errors.named(
      'COIN_RATE_REQUIRED',
      `The coin "${reference}" would be active without a USD rate, and every wallet view needs one: set a rate first (or add it inactive)`,
    )
  }

  /** The static rate in force for a coin, were its operator's rate `setting`. */
  #rateWith(reference: string, setting: string | null | undefined) {
    const c = this.deps.coins.configured(reference)!
    return setting ?? (positive(c.usdRate) ? c.usdRate : null)
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
      throw errors.named(
        'NATIVE_COIN_REQUIRED',
        'The native coin pays the gas of every transfer: it cannot be deactivated',
      )
    const before = (await this.deps.coins.listAll()).find((x) => x.reference === ref)!.active
    if (before === active)
      throw errors.named('COIN_ALREADY_IN_STATE', `The coin is ${active ? 'active' : 'inactive'} already`)
    this.#assertPriced(ref, { active, usdRate: this.#rateWith(ref, this.deps.coins.setting(ref)?.usdRate) })
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
    const active = (await this.deps.coins.listAll()).find((x) => x.reference === ref)!.active
    this.#assertPriced(ref, { active, usdRate: this.#rateWith(ref, usdRate) })
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

  /**
   * Adds an ERC-20 token already deployed on the configured chain. The contract is read before
   * the database transaction (code at the address, its `decimals()`); the coin, the operator's rate
   * and the audit row are written in one transaction, and every process takes the coin when it
   * commits.
   */
  async add(actor: AdminActor, input: AddCoinInput, reason: string) {
    const { coins, chain } = this.deps
    if (input.chain !== String(chain.chainId))
      throw errors.field('/chain', `the configured chain is ${chain.chainId}; coins are added to it only`)
    const address = input.contractAddress
    if (!isAddress(address))
      throw errors.field(
        '/contractAddress',
        'not an address: a mixed-case address needs a valid EIP-55 checksum',
      )
    const contractAddress = getAddress(address)
    const reference = (input.reference ?? input.symbol).toLowerCase()
    if (!REFERENCE.test(reference))
      throw errors.field('/reference', 'a reference is a slug of a-z, 0-9, . _ - (up to 32 characters)')
    const symbol = input.symbol
    const name = input.name.trim()
    const active = input.active ?? false
    const usdRate = input.rate ?? null
    if (usdRate !== null && !positive(usdRate))
      throw errors.field('/rate', 'must be a positive decimal number of USD per whole coin, e.g. "1.00"')
    // What this process knows answers most conflicts before the chain is asked (checked again,
    // under a lock, in the transaction).
    const known = coins.listAllSync()
    const sameContract = (c: { contractAddress: string | null }) =>
      c.contractAddress?.toLowerCase() === contractAddress.toLowerCase()
    const taken =
      known.find((c) => c.reference === reference) ??
      known.find(sameContract) ??
      known.find((c) => c.symbol.toLowerCase() === symbol.toLowerCase())
    if (taken) {
      const what =
        taken.reference === reference
          ? `the reference "${reference}"`
          : sameContract(taken)
            ? 'the contract'
            : `the symbol ${symbol}`
      throw errors.named('COIN_EXISTS', `The coin "${taken.reference}" has ${what} already`)
    }
    this.#assertPriced(reference, { active, usdRate })

    let decimals: number
    try {
      if (!(await chain.isContract(contractAddress)))
        throw errors.named(
          'CONTRACT_NOT_FOUND',
          `No contract is deployed at ${contractAddress} on chain ${chain.chainId}`,
        )
      decimals = (await chain.tokenInfo(contractAddress)).decimals
    } catch (err) {
      if (err instanceof ChainError && err.code === 'REJECTED')
        throw errors.named(
          'CONTRACT_NOT_ERC20',
          `The contract at ${contractAddress} is not an ERC-20 token: ${err.message}`,
        )
      if (err instanceof ChainError)
        throw errors.unavailable('The chain could not be read; try again shortly')
      throw err
    }
    if (decimals > 36)
      throw errors.named(
        'TOKEN_DECIMALS_UNSUPPORTED',
        `The token has ${decimals} decimals; at most 36 are supported`,
      )
    if (input.decimals !== undefined && input.decimals !== decimals)
      throw errors.named(
        'TOKEN_DECIMALS_MISMATCH',
        `The contract says the token has ${decimals} decimals, not ${input.decimals}`,
        { decimals },
      )

    const coin = {
      reference,
      symbol,
      name,
      icon: input.icon ?? '',
      contractAddress,
      decimals,
      active,
      usdRate,
    }
    await this.deps.db.transaction().execute(async (tx) => {
      await coins.add(tx, coin, actor.userId)
      await this.deps.audit.record(tx, actor, {
        action: 'coin.add',
        targetType: 'coin',
        targetId: reference,
        reason,
        details: { symbol, name, contractAddress, decimals, chainId: chain.chainId, active, usdRate },
      })
    })
    await coins.reload()
    return this.#one(reference)
  }
}
