// Postings: ledger movements out of a transfer's funding account that a caller asks for with its
// intent (a withdrawal's fee on success, its hold back to the wallet on failure). Settlement books
// them in the transaction that settles the transfer, so they are atomic with the settlement.
import type { Tx } from '../../../db/index.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import type { SenderContext } from './types.ts'

/** Books the postings the caller asked for with this outcome; their ledger transfer ids by key. */
export async function bookPostings(
  s: SenderContext,
  tx: Tx,
  row: OutgoingRow,
  outcome: 'completed' | 'failed',
): Promise<Record<string, string>> {
  const { ledger } = s.deps
  const booked: Record<string, string> = {}
  const postings = await outgoingRepo.postings(tx, row.id, outcome)
  if (postings.length > 0 && !row.fundingAccountId) throw new Error('postings need a funding account')
  for (const p of postings) {
    const to = await ledger.ensureAccount(tx, p.accountKind, p.accountOwnerId, row.coin)
    const amount = BigInt(p.amount)
    const result = await ledger.transfer(tx, {
      key: p.idempotencyKey,
      coin: row.coin,
      kind: p.kind,
      ...(p.description ? { description: p.description } : {}),
      legs: [
        { account: row.fundingAccountId!, amount: -amount },
        { account: to, amount },
      ],
    })
    await outgoingRepo.setPostingBooked(tx, p, result.id)
    booked[p.idempotencyKey] = result.id
  }
  return booked
}
