// The ledger's own invariants, read in the caller's transaction (one snapshot): every coin's
// entries sum to zero, and no account but the chain's clearing accounts is below zero. Answers
// how many of them are broken.
import type { Tx } from '../src/db/index.ts'

export async function ledgerViolations(tx: Tx): Promise<number> {
  const perCoin = await tx
    .selectFrom('ledgerEntries')
    .select(['coin', (eb) => eb.fn.sum<string>('amount').as('total')])
    .groupBy('coin')
    .execute()
  const negative = await tx
    .selectFrom('ledgerAccounts')
    .select('id')
    .where('kind', '!=', 'chain')
    .where('balance', '<', '0')
    .execute()
  return perCoin.filter((r) => BigInt(r.total) !== 0n).length + negative.length
}
