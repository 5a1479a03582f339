// Coins, chain configuration and USD rates (spec #16, #17, #21), and the chain adapter.
import { openChain } from '../../platform/chain/index.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import { httpRates, staticRates } from '../../platform/rates/sources.ts'
import type { RateSource } from '../../platform/rates/types.ts'
import type { FeatureModule } from '../core.ts'
import { dbJournal } from './repo.ts'
import { paymentRoutes } from './routes.ts'
import { PaymentService } from './service.ts'

declare module '../core.ts' {
  interface Services {
    /** the chain adapter (devnet or JSON-RPC) */
    chain: ChainAdapter
    /** the coin registry: active coins, lookups, exact amount conversions */
    coins: PaymentService
    /** USD prices (static from the coin configuration, or an HTTP feed) */
    rates: RateSource
  }
}

export const paymentModule: FeatureModule = async ({ app, config, db, clock, log, services }) => {
  const { chain, settings } = await openChain(config, {
    journal: dbJournal(db),
    onWarning: (message) => log.warn(message),
  })
  // Close the chain when the app closes, also when a later module fails to start.
  app.addHook('onClose', async () => {
    await chain.close()
  })
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
  const payment = new PaymentService({ db, clock, chain, rates, chainSettings: settings.chain })
  await payment.init()
  services.chain = chain
  services.coins = payment
  services.rates = rates
  log.info(
    { chain: chain.kind, chainId: chain.chainId, rpcUrl: chain.devnet?.rpcUrl, coins: references },
    'chain ready',
  )

  await app.register(paymentRoutes, { payment })
}
