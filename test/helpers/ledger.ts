// Ledger invariants any money test can assert after it ran, checked by the same code as the
// reconciliation job (src/modules/settlement/reconcile/checks.ts): every transfer balances, cached
// balances equal their entries (system accounts keep none), holds stay within balances, no account
// but the chain's clearing account is below zero, and (given the chain) each custodial address
// holds on chain what the ledger says, with nothing in flight.
import { expect } from 'vitest'
import type { Db, Executor } from '../../src/db/index.ts'
import type { Ledger } from '../../src/modules/ledger/service.ts'
import { compareWithChain, ledgerInvariants } from '../../src/modules/settlement/reconcile/checks.ts'
import type { ChainAdapter } from '../../src/platform/chain/types.ts'
import { newId } from '../../src/platform/crypto/ids.ts'

export interface LedgerCheckOptions {
  /** compare ledger and on-chain balances of custodial addresses (after the watcher caught up) */
  chain?: ChainAdapter
  /** restrict the on-chain comparison to these addresses (default: every custodial address) */
  addresses?: string[]
}

export async function expectLedgerConsistent(db: Executor, opts: LedgerCheckOptions = {}) {
  // Each coin's entries sum to zero (as each transfer's do, checked below with the rest).
  const perCoin = await db
    .selectFrom('ledgerEntries')
    .select(['coin', (eb) => eb.fn.sum<string>('amount').as('total')])
    .groupBy('coin')
    .execute()
  for (const row of perCoin) expect(BigInt(row.total), `entries of ${row.coin} sum to zero`).toBe(0n)
  expect(await ledgerInvariants(db), 'ledger invariants').toEqual([])

  if (!opts.chain) return
  const compared = await compareWithChain(
    db as Db,
    opts.chain,
    opts.addresses ? { addresses: opts.addresses } : {},
  )
  // A test asserts once everything settled: nothing may be left in flight.
  expect(compared.skipped, 'custodial addresses with transfers in flight').toEqual([])
  const mismatches = compared.coins.flatMap((c) => c.mismatches)
  expect(mismatches, 'custodial addresses whose ledger balance is not their chain balance').toEqual([])
}

/** Moves `amount` of `coin` (usdc unless named) from one account to another in a transaction of its own. */
export function moveValue(
  db: Db,
  ledger: Ledger,
  m: { key: string; from: string; to: string; amount: bigint; coin?: string },
) {
  return db.transaction().execute((tx) =>
    ledger.transfer(tx, {
      key: m.key,
      coin: m.coin ?? 'usdc',
      legs: [
        { account: m.from, amount: -m.amount },
        { account: m.to, amount: m.amount },
      ],
    }),
  )
}

/**
 * A new user's account of `coin` holding `amount`, credited from the chain's clearing account
 * (`owner` the new user's id, `user` and `clearing` the account ids).
 */
export async function fundedAccount(db: Db, ledger: Ledger, amount: bigint, coin = 'usdc') {
  const owner = newId()
  const user = await ledger.ensureAccount(db, 'user', owner, coin)
  const clearing = await ledger.ensureAccount(db, 'chain', 'test', coin)
  await moveValue(db, ledger, { key: `fund:${owner}`, from: clearing, to: user, amount, coin })
  return { owner, user, clearing }
}
