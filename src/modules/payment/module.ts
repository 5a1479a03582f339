// Coins, chain configuration and USD rates (spec #16, #17, #21), and the chain adapter.
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Database, Db, Executor } from '../../db/index.ts'
import type { ChannelListener } from '../../db/listen.ts'
import type { DevnetCompaction } from '../../platform/chain/devnet-compactor.ts'
import { openChain } from '../../platform/chain/index.ts'
import type { Clock } from '../../platform/clock.ts'
import { httpRates, staticRates } from '../../platform/rates/sources.ts'
import type { RateSource } from '../../platform/rates/types.ts'
import { COINS_CHANNEL, dbJournal, replaceJournal } from './repo.ts'
import { paymentRoutes } from './routes.ts'
import { PaymentService } from './service.ts'

/** What the embedded dev chain's journal compaction asks of the modules that read the chain. */
export interface ChainHistoryPort {
  readers(chainId: string): Promise<{ cursor: bigint | null; openTxHashes: string[] }>
  recordedBlocks(chainId: string): Promise<bigint[]>
  /** records new block hashes, in the transaction that replaces the journal */
  rebase(tx: Executor, chainId: string, hashes: Map<bigint, string>): Promise<void>
}

/** The devnet journal's compaction on the database: the journal and the hashes kept change together. */
export function journalCompaction(db: Db, history: ChainHistoryPort): DevnetCompaction {
  return {
    readers: (chainId) => history.readers(chainId),
    recordedBlocks: (chainId) => history.recordedBlocks(chainId),
    commit: (chainId, entries, hashes) =>
      db.transaction().execute(async (tx) => {
        await replaceJournal(tx, entries)
        await history.rebase(tx, chainId, hashes)
      }),
  }
}

/**
 * Opens the chain adapter (devnet or JSON-RPC) and builds the coin registry (`coins`: active
 * coins, lookups, exact amount conversions) and the USD price source (`rates`: static from the
 * coin configuration, or an HTTP feed). `close` closes the chain.
 */
export async function buildPayment(d: {
  db: Db
  config: Config
  clock: Clock
  log: Logger
  /** LISTEN for coins operators add and their settings (every process re-reads them) */
  listen?: Database['listen']
  /** the chain history's readers (settlement's), for the embedded dev chain's journal compaction */
  history?: ChainHistoryPort
}) {
  const { config, db, clock, log, history } = d
  const { chain, settings } = await openChain(config, {
    journal: dbJournal(db),
    ...(history ? { compaction: journalCompaction(db, history) } : {}),
    onWarning: (message) => log.warn(message),
    onInfo: (message, details) => log.info(details, message),
  })
  let listener: ChannelListener | undefined
  const close = async () => {
    await listener?.close()
    await chain.close()
  }
  try {
    const references = chain.coins.map((c) => c.reference)
    const source: RateSource = config.rateFeedUrl
      ? httpRates({
          url: config.rateFeedUrl,
          // asked at every read: coins operators add at run time are priced by the feed too
          references: () => chain.coins.map((c) => c.reference),
          ttlMs: config.rateFeedTtlMs,
          maxAgeMs: config.rateFeedMaxAgeMs,
          now: () => clock.now().getTime(),
        })
      : staticRates(Object.fromEntries(chain.coins.map((c) => [c.reference, c.usdRate])))
    // A static USD rate an operator set for a coin wins over the configured rate or the feed. The
    // merged table is kept while both parts stand (each is the same object until it changes).
    type Rates = Readonly<Record<string, string>>
    let merged: { base: Rates; overrides: Rates; rates: Rates } | undefined
    const rates: RateSource = {
      kind: source.kind,
      getRates: async () => {
        const base = await source.getRates()
        const overrides = coins.rateOverrides()
        if (merged?.base !== base || merged.overrides !== overrides)
          merged = { base, overrides, rates: Object.freeze({ ...base, ...overrides }) }
        return merged.rates
      },
      getRate: async (reference) => coins.rateOverride(reference) ?? source.getRate(reference),
    }
    const coins: PaymentService = new PaymentService({
      db,
      clock,
      chain,
      rates,
      chainSettings: settings.chain,
      log,
    })
    await coins.init()
    if (d.listen) {
      const reload = () =>
        coins.reload().catch((err) => log.error({ err }, 'coin settings could not be re-read'))
      try {
        listener = await d.listen(COINS_CHANNEL, { onMessage: reload, onReconnect: reload })
      } catch (err) {
        log.warn({ err: err instanceof Error ? err.message : String(err) }, 'coin settings: cannot listen')
      }
    }
    log.info(
      { chain: chain.kind, chainId: chain.chainId, rpcUrl: chain.devnet?.rpcUrl, coins: references },
      'chain ready',
    )
    return { chain, coins, rates, close }
  } catch (err) {
    await close()
    throw err
  }
}

export async function paymentHttp(app: FastifyInstance, s: { coins: PaymentService }) {
  await app.register(paymentRoutes, { payment: s.coins })
}
