// The coin registry (services.coins) and the payment configuration endpoints' logic.
import type { Logger } from 'pino'
import type { Db, Executor } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { ChainSettings } from '../../platform/chain/coins-config.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { AmountError, formatUnits, parseUnits, unitsToNumber } from '../../platform/money/index.ts'
import { RateError, type RateSource } from '../../platform/rates/types.ts'
import { insertNewCoin, type NewCoin } from './added-coins.ts'
import {
  type CoinRow,
  getChain,
  listAddedCoins,
  listCoinSettings,
  listCoins,
  saveCoinSetting,
  syncChain,
  syncCoins,
} from './repo.ts'
import type { ChainRecord, Coin, CoinRecord, CoinService } from './types.ts'

export interface PaymentServiceDeps {
  db: Db
  clock: Clock
  chain: ChainAdapter
  rates: RateSource
  chainSettings: ChainSettings
  log?: Pick<Logger, 'warn'>
}

/** Who added a coin at run time, and when. */
export interface CoinAddition {
  by: string
  at: Date
}

function toRecord(row: CoinRow): CoinRecord {
  return {
    _id: row.id,
    name: row.name,
    symbol: row.symbol,
    reference: row.reference,
    icon: row.icon,
    ...(row.contractAddress ? { contractAddress: row.contractAddress } : {}),
    decimal: String(row.decimal),
    isToken: row.isToken,
    rpcChainId: row.rpcChainId,
    active: row.active,
    order: row.displayOrder,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    __v: row.version,
  }
}

/** An operator's settings of a coin over its configuration (null: as configured). */
export interface CoinSetting {
  active: boolean | null
  usdRate: string | null
  updatedBy: string | null
  updatedAt: Date
}

/**
 * Coins are configuration: written at start-up from COINS_FILE (or the built-ins) and read into
 * memory, so lookups on hot paths cost no query. Operators add tokens at run time (rows of `coins`
 * with `added_by`) and change settings (`coin_settings`: active or not, a static USD rate) over
 * them; a change is announced on `coins_changed` and every process re-reads both (`reload`),
 * registering added tokens with its chain adapter.
 */
export class PaymentService implements CoinService {
  #all: Coin[] = []
  /** the coins' own definitions: the configuration's and those operators added */
  #configured: Coin[] = []
  #added = new Map<string, CoinAddition>()
  /** added coins this process cannot take (their contract or reference is configured): warned once */
  #refused = new Set<string>()
  #settings = new Map<string, CoinSetting>()
  #overrides: { from: Map<string, CoinSetting>; rates: Readonly<Record<string, string>> } | undefined
  #chain: ChainRecord | undefined
  #rpcChainId = ''
  #reloading: Promise<void> = Promise.resolve()

  constructor(private readonly deps: PaymentServiceDeps) {}

  /** Writes the configured chain and coins to the database and loads them. */
  async init(): Promise<void> {
    const { db, clock, chain, chainSettings } = this.deps
    const now = clock.now()
    const rpcChainId = String(chain.chainId)
    this.#rpcChainId = rpcChainId
    const settings = { ...chainSettings, rpcChainId, rpcUrls: chain.info.rpcUrls }
    await db.transaction().execute(async (tx) => {
      await syncChain(tx, settings, now)
      await syncCoins(
        tx,
        chain.coins.map((c) => ({
          name: c.name,
          symbol: c.symbol,
          reference: c.reference,
          icon: c.icon,
          contractAddress: c.contractAddress,
          decimal: c.decimals,
          isToken: c.isToken,
          rpcChainId,
          active: c.active,
          order: c.order,
          usdRate: c.usdRate,
        })),
        now,
      )
    })
    const rows = await listCoins(db)
    const byRef = new Map(chain.coins.map((c) => [c.reference, c]))
    this.#configured = rows.flatMap((row) => {
      const c = byRef.get(row.reference)
      return c ? [{ ...c, id: row.id, record: toRecord(row) }] : []
    })
    await this.reload()
    const ch = await getChain(db, rpcChainId)
    this.#chain = {
      _id: ch.id,
      rpcName: ch.rpcName,
      rpcChainId: ch.rpcChainId,
      rpcUrls: ch.rpcUrls,
      blockExplorerUrls: ch.blockExplorerUrls,
      rpcNativeCurrency: ch.rpcNativeCurrency,
      active: ch.active,
      createdAt: ch.createdAt.toISOString(),
      updatedAt: ch.updatedAt.toISOString(),
      __v: ch.version,
    }
  }

  /**
   * Re-reads the coins operators added and their settings (at start-up, when a change is
   * announced, and when the deposit watcher finds a coin it has not read yet). Calls run one after
   * the other, so an older read never overwrites a newer one.
   */
  reload(): Promise<void> {
    const run = this.#reloading.then(() => this.#reload())
    this.#reloading = run.catch(() => {})
    return run
  }

  async #reload(): Promise<void> {
    const [rows, added] = await Promise.all([
      listCoinSettings(this.deps.db),
      listAddedCoins(this.deps.db, this.#rpcChainId),
    ])
    for (const row of added) this.#learn(row)
    this.#settings = new Map(
      rows.map((r) => [
        r.reference,
        { active: r.active, usdRate: r.usdRate, updatedBy: r.updatedBy, updatedAt: r.updatedAt },
      ]),
    )
    this.#all = this.#configured.map((c) => {
      const s = this.#settings.get(c.reference)
      if (!s) return c
      const active = s.active ?? c.active
      const usdRate = s.usdRate ?? c.usdRate
      return { ...c, active, usdRate, record: { ...c.record, active } }
    })
  }

  /** Whether this process takes an added coin: the configuration wins over an addition. */
  #takes(row: CoinRow): boolean {
    const contract = row.contractAddress?.toLowerCase()
    return !this.#configured.some(
      (c) =>
        !this.#added.has(c.reference) &&
        (c.reference === row.reference || (!!contract && c.contractAddress?.toLowerCase() === contract)),
    )
  }

  /** Registers a coin an operator added with the chain adapter and the registry. */
  #learn(row: CoinRow): void {
    if (this.#added.has(row.reference) || this.#refused.has(row.reference)) return
    try {
      if (!this.#takes(row) || !row.contractAddress)
        throw new Error('its reference or contract is a configured coin')
      const c = this.deps.chain.addToken({
        reference: row.reference,
        name: row.name,
        symbol: row.symbol,
        icon: row.icon,
        decimals: row.decimal,
        isToken: true,
        contractAddress: row.contractAddress as `0x${string}`,
        order: row.displayOrder,
        active: row.active,
        usdRate: String(row.usdRate),
      })
      const at = this.#configured.findIndex((x) => x.order > c.order)
      this.#configured.splice(at === -1 ? this.#configured.length : at, 0, {
        ...c,
        id: row.id,
        record: toRecord(row),
      })
      this.#added.set(row.reference, { by: row.addedBy!, at: row.createdAt })
    } catch (err) {
      this.#refused.add(row.reference)
      this.deps.log?.warn(
        { coin: row.reference, err: err instanceof Error ? err.message : String(err) },
        'a coin added by an operator is not taken',
      )
    }
  }

  /**
   * Coins added at run time (read in `ex`) that `known` lacks: a reader that scanned the chain
   * with `known` alone must read again after `reload`.
   */
  async missing(ex: Executor, known: readonly string[]): Promise<string[]> {
    const have = new Set(known)
    const rows = await listAddedCoins(ex, this.#rpcChainId)
    return rows
      .filter((r) => !have.has(r.reference) && !this.#refused.has(r.reference) && this.#takes(r))
      .map((r) => r.reference)
  }

  /**
   * Adds an ERC-20 token (its contract and decimals checked on chain before) in `tx`, with the
   * operator's static USD rate when given, and announces it; every process (this one included)
   * takes it once the transaction commits. 409 when the reference, symbol or contract is a coin's
   * already (retired coins included).
   */
  add(tx: Executor, c: NewCoin, by: string): Promise<void> {
    return insertNewCoin(tx, c, { by, rpcChainId: this.#rpcChainId, now: this.deps.clock.now() })
  }

  /** Who added the coin at run time, and when; undefined for a coin of the configuration. */
  addition(reference: string): CoinAddition | undefined {
    return this.#added.get(reference)
  }

  /** Whether USD prices come only from static rates (no feed): a coin without one has no price. */
  get staticRates(): boolean {
    return this.deps.rates.kind === 'static'
  }

  /** The operator's setting of a coin, if any. */
  setting(reference: string): CoinSetting | undefined {
    return this.#settings.get(reference)
  }

  /** The coin as configured (or as an operator added it), before operators' settings. */
  configured(reference: string): Coin | undefined {
    return this.#configured.find((c) => c.reference === reference)
  }

  /** A static USD rate an operator set for the coin (it wins over the rate source). */
  rateOverride(reference: string): string | undefined {
    return this.#settings.get(String(reference).toLowerCase())?.usdRate ?? undefined
  }

  /** Every USD rate operators set, by coin reference (the same frozen object until they change). */
  rateOverrides(): Readonly<Record<string, string>> {
    // Worked out once per set of settings (re-read settings are a new map).
    if (this.#overrides?.from !== this.#settings) {
      const out: Record<string, string> = {}
      for (const [ref, s] of this.#settings) if (s.usdRate) out[ref] = s.usdRate
      this.#overrides = { from: this.#settings, rates: Object.freeze(out) }
    }
    return this.#overrides.rates
  }

  /**
   * Writes an operator's settings of a configured coin in `tx` and announces them; every process
   * (this one included) re-reads them once the transaction commits. `null` resets a setting to
   * the configuration.
   */
  async saveSetting(
    tx: Executor,
    reference: string,
    patch: { active?: boolean | null; usdRate?: string | null },
    by: string,
  ): Promise<void> {
    const ref = reference.trim().toLowerCase()
    if (!this.#configured.some((c) => c.reference === ref))
      throw errors.field('/coin', `unknown coin reference "${reference.slice(0, 40)}"`)
    await saveCoinSetting(tx, { reference: ref, ...patch, updatedBy: by, updatedAt: this.deps.clock.now() })
  }

  async list(): Promise<Coin[]> {
    return this.#all.filter((c) => c.active)
  }

  /** every configured coin, active or not, in display order */
  async listAll(): Promise<Coin[]> {
    return [...this.#all]
  }

  listAllSync(): Coin[] {
    return [...this.#all]
  }

  async get(reference: string): Promise<Coin> {
    return this.#active(reference)
  }

  #active(reference: string, path = '/coin'): Coin {
    const ref = typeof reference === 'string' ? reference.trim().toLowerCase() : ''
    const c = this.#all.find((x) => x.reference === ref && x.active)
    if (!c) throw errors.field(path, `unknown coin reference "${String(reference).slice(0, 40)}"`)
    return c
  }

  #decimals(reference: string): number {
    const ref = typeof reference === 'string' ? reference.toLowerCase() : ''
    const c = this.#all.find((x) => x.reference === ref)
    if (!c) throw errors.field('/coin', `unknown coin reference "${String(reference).slice(0, 40)}"`)
    return c.decimals
  }

  async chain(): Promise<ChainRecord> {
    if (!this.#chain) throw new Error('payment service not initialised')
    return this.#chain
  }

  format(amount: bigint, reference: string, fixed?: number): string {
    return formatUnits(amount, this.#decimals(reference), fixed)
  }

  toNumber(amount: bigint, reference: string): number {
    return unitsToNumber(amount, this.#decimals(reference))
  }

  parse(value: number | string, reference: string, path = '/amount'): bigint {
    const decimals = this.#decimals(reference)
    try {
      return parseUnits(value, decimals)
    } catch (err) {
      if (err instanceof AmountError) throw errors.field(path, `amount ${err.message}`)
      throw err
    }
  }

  /** #16: active coins in display order, in API shape */
  async coinRecords(): Promise<CoinRecord[]> {
    return (await this.list()).map((c) => c.record)
  }

  /** #21: USD rate per active coin, as JSON numbers */
  async exchangeRates(): Promise<Record<string, number>> {
    let rates: Record<string, string>
    try {
      rates = await this.deps.rates.getRates()
    } catch (err) {
      if (err instanceof RateError) throw errors.unavailable('USD rates are unavailable right now')
      throw err
    }
    const out: Record<string, number> = {}
    for (const c of await this.list()) {
      const r = rates[c.reference]
      if (r !== undefined) out[c.reference] = Number(r)
    }
    return out
  }
}
