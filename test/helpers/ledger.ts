// Ledger invariants any money test can assert after it ran: entries balance per coin and per
// transfer, cached balances equal their entries, no account but the chain's clearing account is
// below zero, and (given the chain) each custodial address holds on chain what the ledger says.
import { expect } from 'vitest'
import type { Executor } from '../../src/db/index.ts'
import { isSystemKind } from '../../src/modules/ledger/types.ts'
import type { ChainAdapter } from '../../src/platform/chain/types.ts'

const OWNER_ACCOUNT_KIND = { user: 'user', escrow: 'escrow', treasury: 'treasury' } as const

export interface LedgerCheckOptions {
  /** compare ledger and on-chain balances of custodial addresses (after the watcher caught up) */
  chain?: ChainAdapter
  /** restrict the on-chain comparison to these addresses (default: every custodial address) */
  addresses?: string[]
}

export async function expectLedgerConsistent(db: Executor, opts: LedgerCheckOptions = {}) {
  // 1. Each coin's entries sum to zero, and so does each transfer.
  const perCoin = await db
    .selectFrom('ledgerEntries')
    .select(['coin', (eb) => eb.fn.sum<string>('amount').as('total')])
    .groupBy('coin')
    .execute()
  for (const row of perCoin) expect(BigInt(row.total), `entries of ${row.coin} sum to zero`).toBe(0n)
  const unbalanced = await db
    .selectFrom('ledgerEntries')
    .select(['transferId', (eb) => eb.fn.sum<string>('amount').as('total')])
    .groupBy('transferId')
    .having((eb) => eb.fn.sum('amount'), '<>', 0)
    .execute()
  expect(unbalanced, 'every transfer balances').toEqual([])

  // 2. Cached balances equal the sum of their entries; no negative balance but the clearing one.
  const accounts = await db
    .selectFrom('ledgerAccounts')
    .select(['id', 'kind', 'ownerId', 'coin', 'balance', 'held'])
    .execute()
  const sums = new Map(
    (
      await db
        .selectFrom('ledgerEntries')
        .select(['accountId', (eb) => eb.fn.sum<string>('amount').as('total')])
        .groupBy('accountId')
        .execute()
    ).map((r) => [r.accountId, BigInt(r.total)]),
  )
  for (const a of accounts) {
    const name = `${a.kind}/${a.ownerId}/${a.coin}`
    // System accounts keep no cached balance: their entries are their balance.
    if (isSystemKind(a.kind)) {
      expect(BigInt(a.balance), `${name} keeps no cached balance`).toBe(0n)
      if (a.kind !== 'chain') expect((sums.get(a.id) ?? 0n) >= 0n, `${name} >= 0`).toBe(true)
      continue
    }
    expect(BigInt(a.balance), `balance of ${name} equals its entries`).toBe(sums.get(a.id) ?? 0n)
    expect(
      BigInt(a.held) >= 0n && BigInt(a.balance) - BigInt(a.held) >= 0n,
      `${name}: 0 <= held <= balance`,
    ).toBe(true)
  }

  // 3. On-chain balances of custodial addresses equal the ledger.
  if (!opts.chain) return
  const chain = opts.chain
  let keys = await db.selectFrom('walletKeys').select(['address', 'ownerKind', 'ownerId']).execute()
  if (opts.addresses) {
    const only = new Set(opts.addresses.map((a) => a.toLowerCase()))
    keys = keys.filter((k) => only.has(k.address))
  }
  for (const key of keys) {
    const onChain = await chain.balances(key.address)
    for (const coin of chain.coins) {
      // The owner's accounts, plus platform value parked at the address (gas top-ups are booked
      // to the treasury account whose owner id is the address).
      const ledger = accounts
        .filter(
          (a) =>
            a.coin === coin.reference &&
            ((a.kind === OWNER_ACCOUNT_KIND[key.ownerKind] && a.ownerId === key.ownerId) ||
              (a.kind === 'treasury' && a.ownerId === key.address)),
        )
        .reduce((s, a) => s + BigInt(a.balance), 0n)
      expect(ledger, `ledger ${coin.reference} of ${key.address} equals the chain`).toBe(
        onChain[coin.reference] ?? 0n,
      )
    }
  }
}
