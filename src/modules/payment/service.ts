// The coin registry (services.coins) and the payment configuration endpoints' logic.
import type { Db } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { ChainSettings } from '../../platform/chain/coins-config.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { RateError, type RateSource } from '../../platform/rates/types.ts'
import { AmountError, formatUnits, parseUnits } from './amounts.ts'
import { type CoinRow, getChain, listCoins, syncChain, syncCoins } from './repo.ts'
import type { ChainRecord, Coin, CoinRecord, CoinService } from './types.ts'

export interface PaymentServiceDeps {
  db: Db
  clock: Clock
  chain: ChainAdapter
  rates: RateSource
  chainSettings: ChainSettings
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

/**
 * Coins are configuration: written at start-up from COINS_FILE (or the built-ins) and read into
 * memory, so lookups on hot paths cost no query.
 */
export class PaymentService implements CoinService {
  #all: Coin[] = []
  #chain: ChainRecord | undefined

  constructor(private readonly deps: PaymentServiceDeps) {}

  /** Writes the configured chain and coins to the database and loads them. */
  async init(): Promise<void> {
    const { db, clock, chain, chainSettings } = this.deps
    const now = clock.now()
    const rpcChainId = String(chain.chainId)
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
    this.#all = rows.flatMap((row) => {
      const c = byRef.get(row.reference)
      return c ? [{ ...c, id: row.id, record: toRecord(row) }] : []
    })
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

  async list(): Promise<Coin[]> {
    return this.#all.filter((c) => c.active)
  }

  /** every configured coin, active or not, in display order */
  async listAll(): Promise<Coin[]> {
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
    return Number(formatUnits(amount, this.#decimals(reference)))
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
