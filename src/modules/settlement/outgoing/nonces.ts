// Nonces of the sending addresses. Each address has one `outgoing_nonces` row; it is locked while
// a nonce is taken (and while gas is reserved), so two transfers of one address never get the
// same nonce and a taken nonce always belongs to a stored signed transaction (no gap).
import type { Tx } from '../../../db/index.ts'
import { outgoingRepo } from './repo.ts'
import type { SenderContext } from './types.ts'

/** Locks the address's row (created when missing); returns the next nonce stored there. */
export function lockAddress(s: SenderContext, tx: Tx, address: string): Promise<number> {
  return outgoingRepo.lockNonce(tx, s.chainKey, address, s.deps.clock.now())
}

/**
 * Takes the next nonce of `address` in `tx`: the stored next nonce, or the chain's `latest` count
 * when that is ahead (nonces used outside the platform after a key export are skipped). The row
 * stays locked until `tx` ends, and the nonce is only taken if `tx` commits.
 */
export async function takeNonce(s: SenderContext, tx: Tx, address: string, latestOnChain: number) {
  const next = await lockAddress(s, tx, address)
  const nonce = Math.max(next, latestOnChain)
  await outgoingRepo.setNextNonce(tx, s.chainKey, address, nonce + 1, s.deps.clock.now())
  return nonce
}
