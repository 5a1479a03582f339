// Custodial wallets (spec #18–#20): views of ledger balances and keys for the API, the key export,
// and the provisioning of a user's key and wallets.
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db, Tx } from '../../db/index.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import type { RateSource } from '../../platform/rates/types.ts'
import type { ConfirmPassword } from '../account/security.ts'
import type { Ledger } from '../ledger/service.ts'
import type { CoinService } from '../payment/types.ts'
import type { KeyStore } from '../settlement/keys.ts'
import type { SettlementChecks } from '../settlement/module.ts'
import { WalletProvisioner } from './provision.ts'
import { walletRoutes } from './routes.ts'
import { type WalletAccounts, WalletService } from './service.ts'

/** Built before the account module, which provisions every new account's wallets with it. */
export function buildProvisioner(d: { chain: ChainAdapter; keys: KeyStore; ledger: Ledger }) {
  return { provisioner: new WalletProvisioner(d) }
}

export function buildWallet(d: {
  db: Db
  clock: Clock
  log: Logger
  chain: ChainAdapter
  coins: CoinService
  rates: RateSource
  keys: KeyStore
  provisioner: WalletProvisioner
  accounts: WalletAccounts
  settlement: SettlementChecks
  /** checks the code confirming a sensitive action and runs `then` in the transaction using it */
  verifySensitiveCode: <T>(userId: string, code: string, then: (tx: Tx) => Promise<T>) => Promise<T>
  confirmPassword: ConfirmPassword
}) {
  /** custodial keys and wallets */
  const wallets = new WalletService({ ...d, watcher: d.settlement.watcher })
  return { wallets }
}

export async function walletHttp(app: FastifyInstance, s: { wallets: WalletService; config: Config }) {
  await app.register(walletRoutes, { wallets: s.wallets, config: s.config })
}
