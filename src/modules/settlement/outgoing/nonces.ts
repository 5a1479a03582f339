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
