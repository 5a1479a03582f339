// Receipts of a transfer's stored transactions: the first and any replacement share one nonce, so
// at most one of them is ever mined, and whichever it is settles the transfer. A run looks once and
// leaves; the next look is a run scheduled a few seconds later (`nextCheckDelay`).
import type { Hash } from 'viem'
import type { TransferReceipt } from '../../../platform/chain/types.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import type { SenderContext } from './types.ts'

/** The hashes of every transaction stored for the transfer, the current one first. */
export async function hashesOf(s: SenderContext, row: OutgoingRow): Promise<Hash[]> {
  const stored = (await outgoingRepo.transactions(s.deps.db, row.id)).map((t) => t.txHash)
  const current = row.txHash ? [row.txHash] : []
  return [...new Set([...current, ...stored.reverse()])] as Hash[]
}

/** The receipt of whichever stored transaction was mined, if any. */
export async function minedOf(
  s: SenderContext,
  row: OutgoingRow,
  hashes?: Hash[],
): Promise<TransferReceipt | null> {
  for (const hash of hashes ?? (await hashesOf(s, row))) {
    const receipt = await s.deps.chain.getReceipt(hash)
    if (receipt) return receipt
  }
  return null
}

/**
 * When a transfer whose transaction is not mined yet is looked at again: a tenth of the time since
 * its current transaction was signed, at least `receiptCheckMs` and at most `pendingRecheckMs`. A
 * fresh transaction is checked (and broadcast again) every few seconds, one pending for minutes
 * every `pendingRecheckMs`; no run ever waits for a receipt.
 */
export async function nextCheckDelay(s: SenderContext, row: OutgoingRow): Promise<number> {
  const stored = await outgoingRepo.transactions(s.deps.db, row.id)
  const current = stored.find((t) => t.txHash === row.txHash)
  const since = current?.signedAt ?? row.signedAt ?? row.createdAt
  const age = Math.max(0, s.deps.clock.now().getTime() - since.getTime())
  return Math.min(Math.max(Math.round(age / 10), s.options.receiptCheckMs), s.options.pendingRecheckMs)
}
