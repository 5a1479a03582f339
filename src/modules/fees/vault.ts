// The platform's fee address: a custodial key of the platform (owner `treasury`/`fees`) to which
// escrow releases pay their platform fee. What arrives there is credited by the deposit watcher to
// the fee account (ledger `treasury` account of owner `fees`, one per coin), checked against the
// chain by reconciliation like every custodial address, and swept to a cold address from there.
import type { Db } from '../../db/index.ts'
import type { KeyStore } from '../settlement/types.ts'

/** Owner of the fee address's key and of the fee accounts (kind `treasury`). */
export const FEE_VAULT_OWNER = 'fees'
export const FEE_VAULT_KIND = 'treasury' as const

/** The fee address (lower case), its key created once (concurrent starts create one). */
export async function ensureFeeVault(db: Db, keys: Pick<KeyStore, 'ensure'>): Promise<string> {
  const key = await db.transaction().execute((tx) => keys.ensure(tx, FEE_VAULT_KIND, FEE_VAULT_OWNER))
  return key.address.toLowerCase()
}
