// Coins, chain configuration and USD rates (spec #16, #17, #21), and the chain adapter.
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import { openChain } from '../../platform/chain/index.ts'
import type { Clock } from '../../platform/clock.ts'
import { httpRates, staticRates } from '../../platform/rates/sources.ts'
import type { RateSource } from '../../platform/rates/types.ts'
import { dbJournal } from './repo.ts'
import { paymentRoutes } from './routes.ts'
import { PaymentService } from './service.ts'

/**
 * Opens the chain adapter (devnet or JSON-RPC) and builds the coin registry (`coins`: active
 * coins, lookups, exact amount conversions) and the USD price source (`rates`: static from the
 * coin configuration, or an HTTP feed). `close` closes the chain.
 */
export async function buildPayment(d: { db: Db; config: Config; clock: Clock; log: Logger }) {
  const { config, db, clock, log } = d
  const { chain, settings } = await openChain(config, {
    journal: dbJournal(db),
    onWarning: (message) => log.warn(message),
  })
  const close = async () => {
    await chain.close()
  }
  try {
    const references = chain.coins.map((c) => c.reference)
    const rates: RateSource = config.rateFeedUrl
      ? httpRates({
          url: config.rateFeedUrl,
          references,
          ttlMs: config.rateFeedTtlMs,
          maxAgeMs: config.rateFeedMaxAgeMs,
          now: () => clock.now().getTime(),
        })
      : staticRates(Object.fromEntries(chain.coins.map((c) => [c.reference, c.usdRate])))
    const coins = new PaymentService({ db, clock, chain, rates, chainSettings: settings.chain })
    await coins.init()
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
