// Receipts of a transfer's stored transactions: the first and any replacement share one nonce, so
// at most one of them is ever mined, and whichever it is settles the transfer. A run looks once and
// leaves; the next look is a run scheduled a few seconds later (`nextCheckDelay`).
import type { Hash } from 'viem'
import type { TransferReceipt } from '../../../platform/chain/types.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import type { SenderContext } from './types.ts'

/** A stored transaction of a transfer, as the receipt checks need it. */
export interface StoredTx {
  seq: number
  txHash: string
  signedAt: Date
}

/**
 * The stored transactions of a transfer, read once per run: `known.stored` keeps them (a run that
 * signed the transfer itself knows them without reading them).
 */
export async function storedOf(
  s: SenderContext,
  row: OutgoingRow,
  known: { stored?: StoredTx[] | undefined } = {},
): Promise<StoredTx[]> {
  known.stored ??= await outgoingRepo.transactions(s.deps.db, row.id)
  return known.stored
}

/** The hashes of every transaction stored for the transfer, the current one first. */
export async function hashesOf(
  s: SenderContext,
  row: OutgoingRow,
  known?: { stored?: StoredTx[] | undefined },
): Promise<Hash[]> {
  const stored = (await storedOf(s, row, known)).map((t) => t.txHash)
  const current = row.txHash ? [row.txHash] : []
  return [...new Set([...current, ...stored.reverse()])] as Hash[]
}

/**
 * The receipt of whichever stored transaction was mined, if any. The current transaction is asked
 * for first: when it is the one mined (nearly always), the others are not read.
 */
export async function minedOf(
  s: SenderContext,
  row: OutgoingRow,
  hashes?: Hash[],
  known?: { stored?: StoredTx[] | undefined },
): Promise<TransferReceipt | null> {
  const { chain } = s.deps
  if (!hashes && row.txHash) {
    const receipt = await chain.getReceipt(row.txHash as Hash)
    if (receipt) return receipt
    hashes = (await hashesOf(s, row, known)).filter((h) => h !== row.txHash)
  }
  for (const hash of hashes ?? (await hashesOf(s, row, known))) {
    const receipt = await chain.getReceipt(hash)
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
export async function nextCheckDelay(
  s: SenderContext,
  row: OutgoingRow,
  known?: { stored?: StoredTx[] | undefined },
): Promise<number> {
  const stored = await storedOf(s, row, known)
  const current = stored.find((t) => t.txHash === row.txHash)
  const since = current?.signedAt ?? row.signedAt ?? row.createdAt
  const age = Math.max(0, s.deps.clock.now().getTime() - since.getTime())
  return Math.min(Math.max(Math.round(age / 10), s.options.receiptCheckMs), s.options.pendingRecheckMs)
}
