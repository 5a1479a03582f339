// Custodial wallets (spec #18–#20): views of ledger balances and keys for the API, the key export,
// and the provisioning of a user's key and wallets.
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../config.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Ledger } from '../ledger/service.ts'
import type { KeyStore } from '../settlement/keys.ts'
import type { SettlementChecks } from '../settlement/module.ts'
import { WalletProvisioner } from './provision.ts'
import { walletRoutes } from './routes.ts'
import { WalletService } from './service.ts'

/** Built before the account module, which provisions every new account's wallets with it. */
export function buildProvisioner(d: { chain: ChainAdapter; keys: KeyStore; ledger: Ledger }) {
  return { provisioner: new WalletProvisioner(d) }
}

/** What the wallet service takes, with the settlement module in place of its deposit watcher. */
type WalletDeps = Omit<ConstructorParameters<typeof WalletService>[0], 'watcher'> & {
  settlement: SettlementChecks
}

export function buildWallet(d: WalletDeps) {
  /** custodial keys and wallets */
  const wallets = new WalletService({ ...d, watcher: d.settlement.watcher })
  return { wallets }
}

export async function walletHttp(app: FastifyInstance, s: { wallets: WalletService; config: Config }) {
  await app.register(walletRoutes, { wallets: s.wallets, config: s.config })
}
