// Custodial wallets (spec #18–#20): a read model over the ledger (balances) and settlement (the
// custodial keys) for the API, the key export, and the provisioning of a user's key and wallets.
// Settlement owns the keys and the deposit watcher; nothing of this module is handed to it.
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../config.ts'
import type { ReadCaches } from '../../db/read-cache.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Ledger } from '../ledger/types.ts'
import type { KeyStore } from '../settlement/types.ts'
import { WalletOperatorView } from './operator.ts'
import { WalletProvisioner } from './provision.ts'
import { walletRoutes } from './routes.ts'
import { WALLET_TABLES, type WalletRead, WalletService } from './service.ts'

/** The wallets and keys as the operator's detail pages read them (the admin module builds it). */
export function buildWalletOperatorView(
  d: ConstructorParameters<typeof WalletOperatorView>[0],
): WalletOperatorView {
  return new WalletOperatorView(d)
}

/** Built before the account module, which provisions every new account's wallets with it. */
export function buildProvisioner(d: { chain: ChainAdapter; keys: KeyStore; ledger: Ledger }) {
  return { provisioner: new WalletProvisioner(d) }
}

/** What the wallet service takes, with the read caches in place of its balance cache. */
type WalletDeps = Omit<ConstructorParameters<typeof WalletService>[0], 'balances'> & {
  /** where the balance cache lives (absent: every read goes to the database) */
  caches?: ReadCaches
}

export function buildWallet(d: WalletDeps) {
  /** the wallet views and the key export */
  const { caches, ...rest } = d
  const wallets = new WalletService({
    ...rest,
    ...(caches ? { balances: caches.create<WalletRead>('wallet balances', WALLET_TABLES) } : {}),
  })
  return { wallets }
}

export async function walletHttp(app: FastifyInstance, s: { wallets: WalletService; config: Config }) {
  await app.register(walletRoutes, { wallets: s.wallets, config: s.config })
}
