// Nonces a restored database does not know: a custodial address whose key was never exported
// (only the platform can sign for it) that has more transactions mined on chain than the nonces
// this database gave it sent them in a timeline the restore lost. Until they are re-attached, a
// transfer of that address that the copy still holds may be the very one that was paid already.
import type { Db } from '../../../db/index.ts'
import type { ChainAdapter } from '../../../platform/chain/types.ts'
import { keysRepo } from '../keys-repo.ts'
import { findingsRepo } from './repo.ts'

/** True when `address` (a custodial key never exported) has mined transactions this database did
 * not sign. Reads the chain: call it outside any database transaction. */
export async function unknownNoncesAhead(db: Db, chain: ChainAdapter, address: string): Promise<boolean> {
  const key = await keysRepo.byAddress(db, address.toLowerCase())
  if (!key || key.exportedAt) return false
  const next = (await findingsRepo.nextNonce(db, String(chain.chainId), address)) ?? 0
  return (await chain.getNonce(address, 'latest')) > next
}
