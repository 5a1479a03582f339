// The double-entry ledger: every movement of value is a transfer whose entries sum to zero, written
// in one database transaction with the touched balance rows locked in a fixed order (no deadlocks),
// under a unique idempotency key (a replay returns the first transfer and moves nothing).
// Balances of every account kind except the chain's clearing account never go below zero: checked
// here and by a CHECK constraint in SQL.
import { sql } from 'kysely'
import type { Executor, Tx } from '../../db/index.ts'
import type { LedgerAccountKind } from '../../db/tables/wallet.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'

export type { LedgerAccountKind }

/** Account kinds whose balance may go below zero (they mirror value outside custody). */
export const SYSTEM_KINDS: readonly LedgerAccountKind[] = ['chain']

export interface LedgerLeg {
  /** ledger account id (from `ensureAccount`) */
  account: string
  /** signed base units: negative debits the account, positive credits it */
  amount: bigint
}

export interface TransferInput {
  /** unique per movement of value; a replay with the same key returns the first transfer */
  key: string
  coin: string
  legs: LedgerLeg[]
  /** a short machine label (`deposit`, `withdrawal`, `escrow.fund`, ...) */
  kind?: string
  description?: string
}

export interface TransferResult {
  id: string
  /** true when the key was already used: nothing moved this time */
  replayed: boolean
}

export interface LedgerAccount {
  id: string
  kind: LedgerAccountKind
  ownerId: string
  coin: string
  balance: bigint
}

export class Ledger {
  constructor(private readonly deps: { clock: Clock }) {}

  /**
   * The id of the account (kind, owner, coin), created with a zero balance when missing. System
   * accounts (platform fee, chain clearing) use the owner id '' (or a chain id for `chain`).
   */
  async ensureAccount(ex: Executor, kind: LedgerAccountKind, ownerId: string, coin: string): Promise<string> {
    const existing = await ex
      .selectFrom('ledgerAccounts')
      .select('id')
      .where('kind', '=', kind)
      .where('ownerId', '=', ownerId)
      .where('coin', '=', coin)
      .executeTakeFirst()
    if (existing) return existing.id
    const now = this.deps.clock.now()
    await ex
      .insertInto('ledgerAccounts')
      .values({ id: newId(), kind, ownerId, coin, balance: '0', createdAt: now, updatedAt: now })
      .onConflict((oc) => oc.columns(['kind', 'ownerId', 'coin']).doNothing())
      .execute()
    const row = await ex
      .selectFrom('ledgerAccounts')
      .select('id')
      .where('kind', '=', kind)
      .where('ownerId', '=', ownerId)
      .where('coin', '=', coin)
      .executeTakeFirstOrThrow()
    return row.id
  }

  /** Current balance of an account (0 when it does not exist). */
  async balance(ex: Executor, kind: LedgerAccountKind, ownerId: string, coin: string): Promise<bigint> {
    const row = await ex
      .selectFrom('ledgerAccounts')
      .select('balance')
      .where('kind', '=', kind)
      .where('ownerId', '=', ownerId)
      .where('coin', '=', coin)
      .executeTakeFirst()
    return row ? BigInt(row.balance) : 0n
  }

  /** Balances of one owner's accounts of a kind, keyed by coin. */
  async balances(ex: Executor, kind: LedgerAccountKind, ownerId: string): Promise<Record<string, bigint>> {
    const rows = await ex
      .selectFrom('ledgerAccounts')
      .select(['coin', 'balance'])
      .where('kind', '=', kind)
      .where('ownerId', '=', ownerId)
      .execute()
    return Object.fromEntries(rows.map((r) => [r.coin, BigInt(r.balance)]))
  }

  /** An account by id, its row locked for the rest of `tx` when `forUpdate`. */
  async account(
    ex: Executor,
    id: string,
    opts: { forUpdate?: boolean } = {},
  ): Promise<LedgerAccount | undefined> {
    let q = ex
      .selectFrom('ledgerAccounts')
      .select(['id', 'kind', 'ownerId', 'coin', 'balance'])
      .where('id', '=', id)
    if (opts.forUpdate) q = q.forUpdate()
    const row = await q.executeTakeFirst()
    return row && { ...row, balance: BigInt(row.balance) }
  }

  /**
   * Moves value between accounts of one coin inside the caller's transaction. The legs must sum to
   * zero. A debit that would take a non-system account below zero fails with 422
   * INSUFFICIENT_BALANCE (and rolls back with the caller's transaction).
   */
  async transfer(tx: Tx, input: TransferInput): Promise<TransferResult> {
    if (!input.key || input.key.length > 300) throw new Error('ledger transfer needs an idempotency key')
    // Merge legs per account so one account appears once (its net change).
    const net = new Map<string, bigint>()
    for (const leg of input.legs) {
      if (typeof leg.amount !== 'bigint') throw new Error('ledger amounts are bigint base units')
      net.set(leg.account, (net.get(leg.account) ?? 0n) + leg.amount)
    }
    let sum = 0n
    for (const v of net.values()) sum += v
    if (sum !== 0n) throw new Error(`ledger transfer ${input.key} does not balance (${sum})`)
    const legs = [...net.entries()]
      .filter(([, v]) => v !== 0n)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    if (legs.length < 2) throw new Error(`ledger transfer ${input.key} moves nothing`)

    const now = this.deps.clock.now()
    const id = newId()
    // Waits for a concurrent holder of the same key; then either inserts or sees the first one.
    const inserted = await tx
      .insertInto('ledgerTransfers')
      .values({
        id,
        idempotencyKey: input.key,
        coin: input.coin,
        kind: input.kind ?? '',
        description: input.description ?? '',
        createdAt: now,
      })
      .onConflict((oc) => oc.column('idempotencyKey').doNothing())
      .returning('id')
      .executeTakeFirst()
    if (!inserted) {
      const first = await tx
        .selectFrom('ledgerTransfers')
        .select(['id', 'coin'])
        .where('idempotencyKey', '=', input.key)
        .executeTakeFirstOrThrow()
      if (first.coin !== input.coin)
        throw errors.conflict('This idempotency key was already used for another movement')
      return { id: first.id, replayed: true }
    }

    // Lock every touched balance row in id order: two transfers over the same accounts always
    // lock them in the same order, so they queue instead of deadlocking.
    const ids = legs.map(([a]) => a)
    const rows = await tx
      .selectFrom('ledgerAccounts')
      .select(['id', 'kind', 'coin', 'balance'])
      .where('id', 'in', ids)
      .orderBy('id')
      .forUpdate()
      .execute()
    const byId = new Map(rows.map((r) => [r.id, r]))
    for (const [account, amount] of legs) {
      const row = byId.get(account)
      if (!row) throw new Error(`ledger account ${account} does not exist`)
      if (row.coin !== input.coin)
        throw new Error(`ledger account ${account} holds ${row.coin}, not ${input.coin}`)
      if (amount < 0n && !SYSTEM_KINDS.includes(row.kind) && BigInt(row.balance) + amount < 0n) {
        throw errors.insufficientBalance()
      }
    }
    for (const [account, amount] of legs) {
      await tx
        .updateTable('ledgerAccounts')
        .set({ balance: sql`balance + ${amount.toString()}::numeric`, updatedAt: now })
        .where('id', '=', account)
        .execute()
    }
    await tx
      .insertInto('ledgerEntries')
      .values(
        legs.map(([account, amount]) => ({
          transferId: id,
          accountId: account,
          coin: input.coin,
          amount: amount.toString(),
          createdAt: now,
        })),
      )
      .execute()
    return { id, replayed: false }
  }

  /** The entries of a transfer (for audits and tests). */
  async entries(ex: Executor, transferId: string) {
    const rows = await ex
      .selectFrom('ledgerEntries')
      .select(['accountId', 'coin', 'amount'])
      .where('transferId', '=', transferId)
      .orderBy('id')
      .execute()
    return rows.map((r) => ({ ...r, amount: BigInt(r.amount) }))
  }
}
