// A user's custodial key and one ledger account per coin: made in the sign-up transaction, or
// later for accounts made before wallets existed (or coins activated since).
import type { Tx } from '../../db/index.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Ledger } from '../ledger/types.ts'
import type { KeyStore } from '../settlement/types.ts'

export class WalletProvisioner {
  constructor(private readonly deps: { chain: ChainAdapter; keys: KeyStore; ledger: Ledger }) {}

  /** Sign-up: the key and a wallet per active coin of the configured chain. */
  readonly forNewUser = async (tx: Tx, userId: string): Promise<void> => {
    // The chain's configured coins are in memory; a database read outside `tx` here would wait
    // on the embedded database's single connection that `tx` holds.
    const coins = this.deps.chain.coins.filter((c) => c.active).map((c) => c.reference)
    await this.provision(tx, userId, coins)
  }

  async provision(tx: Tx, userId: string, coins: readonly string[]): Promise<void> {
    await this.deps.keys.ensure(tx, 'user', userId)
    for (const coin of coins) await this.deps.ledger.ensureAccount(tx, 'user', userId, coin)
  }
}
