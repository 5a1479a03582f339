// Receipts of a transfer's stored transactions: the first and any replacement share one nonce, so
// at most one of them is ever mined, and whichever it is settles the transfer.
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

/** Polls for a receipt of any stored transaction for up to `receiptTimeoutMs`; null when none came. */
export async function waitForMined(s: SenderContext, row: OutgoingRow): Promise<TransferReceipt | null> {
  const deadline = Date.now() + s.options.receiptTimeoutMs
  const hashes = await hashesOf(s, row)
  for (;;) {
    const receipt = await minedOf(s, row, hashes)
    if (receipt || Date.now() >= deadline) return receipt
    await new Promise((resolve) => setTimeout(resolve, s.options.receiptPollMs))
  }
}
