// The SQL of the ledger's holds (ledger_holds, and the account a batch of holds opens and locks).
// Callers pass the database or their transaction.
import { sql } from 'kysely'
import { sendAhead } from '../../db/ahead.ts'
import type { Executor, Tx } from '../../db/index.ts'
import { registerPreparedFunction } from '../../db/prepared.ts'
import { registerWritingFunction } from '../../db/read-cache.ts'
import type { LedgerAccountKind, LedgerHoldStatus } from '../../db/tables/ledger.ts'
import type { Hold } from './types.ts'
import { units } from './write.ts'

// The holds of a request in one round trip (`ledger_write_holds`, migration 0060): the read caches
// must count it as the write it is, and its text is planned once per connection.
registerWritingFunction('ledger_write_holds', ['ledger_accounts', 'ledger_holds'])
registerPreparedFunction('ledger_write_holds')

/** How a pending hold is resolved: posted (with its transfer) or voided, under `key`. */
interface HoldResolution {
  status: LedgerHoldStatus
  postedAmount: bigint
  transferId: string | null
  key: string
  expired?: boolean
  now: Date
}

export const holdsRepo = {
  /**
   * Several holds on the account (kind, owner, coin) in one round trip (the `ledger_write_holds`
   * function, migration 0060): opens the account under `row.account` when it is missing, locks it,
   * claims each hold's key in order and raises the account's `held` once by the new holds' total
   * when its available balance covers them. Answers the account's id and the outcome: `written`;
   * `replayed` (the first hold's key was used before with the same input: nothing written);
   * `conflict` (a key used with another input); `insufficient`; `account` (the row exists under
   * another id than `row.account`: only locked). On any outcome but `written` the holds this call
   * claimed are deleted again. `holds` lists each hold's id and whether it was replayed, up to the
   * hold that decided the outcome.
   */
  async writeHolds(
    tx: Tx,
    row: { account: string; kind: LedgerAccountKind; ownerId: string; coin: string; now: Date },
    holds: {
      id: string
      key: string
      inputHash: string
      amount: bigint
      kind: string
      description: string
      expiresAt: Date | null
    }[],
  ): Promise<{
    account: string | null
    outcome: 'written' | 'replayed' | 'conflict' | 'insufficient' | 'account'
    holds: { id: string; replayed: boolean }[]
  }> {
    const { rows } = await sql<{
      account: string | null
      outcome: 'written' | 'replayed' | 'conflict' | 'insufficient' | 'account'
      holdIds: string[]
      replayed: boolean[]
    }>`
      select account, outcome, hold_ids, replayed from ledger_write_holds(
        ${row.account}, ${row.kind}, ${row.ownerId}, ${row.coin}, ${row.now},
        ${holds.map((h) => h.id)}::char(24)[],
        ${holds.map((h) => h.key)}::text[],
        ${holds.map((h) => h.inputHash)}::text[],
        ${holds.map((h) => units(h.amount))}::numeric[],
        ${holds.map((h) => h.kind)}::text[],
        ${holds.map((h) => h.description)}::text[],
        ${holds.map((h) => h.expiresAt?.toISOString() ?? null)}::timestamptz[])`.execute(tx)
    const r = rows[0]!
    return {
      account: r.account,
      outcome: r.outcome,
      holds: r.holdIds.map((id, i) => ({ id, replayed: r.replayed[i]! })),
    }
  },

  async claimHold(
    tx: Tx,
    row: {
      id: string
      key: string
      inputHash: string
      accountId: string
      coin: string
      amount: bigint
      kind: string
      description: string
      expiresAt: Date | null
      now: Date
    },
  ): Promise<boolean> {
    const inserted = await tx
      .insertInto('ledgerHolds')
      .values({
        id: row.id,
        idempotencyKey: row.key,
        inputHash: row.inputHash,
        accountId: row.accountId,
        coin: row.coin,
        amount: units(row.amount),
        kind: row.kind,
        description: row.description,
        expiresAt: row.expiresAt,
        createdAt: row.now,
      })
      .onConflict((oc) => oc.column('idempotencyKey').doNothing())
      .returning('id')
      .executeTakeFirst()
    return inserted !== undefined
  },

  async holdByKey(ex: Executor, key: string) {
    return ex
      .selectFrom('ledgerHolds')
      .select(['id', 'inputHash'])
      .where('idempotencyKey', '=', key)
      .executeTakeFirst()
  },

  async hold(ex: Executor, id: string, opts: { forUpdate?: boolean } = {}): Promise<Hold | undefined> {
    let q = ex
      .selectFrom('ledgerHolds')
      .select([
        'id',
        'accountId',
        'coin',
        'amount',
        'status',
        'postedAmount',
        'transferId',
        'kind',
        'resolutionKey',
        'expiresAt',
        'expiredAt',
      ])
      .where('id', '=', id)
    if (opts.forUpdate) q = q.forUpdate()
    const row = await q.executeTakeFirst()
    return (
      row && {
        ...row,
        amount: BigInt(row.amount),
        postedAmount: BigInt(row.postedAmount),
        expired: row.expiredAt !== null,
      }
    )
  },

  /** Sent ahead (src/db/ahead.ts): the caller holds the row's lock and saw it pending. */
  async resolveHold(tx: Tx, id: string, change: HoldResolution) {
    await sendAhead(tx, holdsRepo.resolution(tx, id, change))
  },

  /** The update resolving a pending hold, built for a statement of the ledger's (not executed). */
  resolution(ex: Executor, id: string, change: HoldResolution) {
    return ex
      .updateTable('ledgerHolds')
      .set({
        status: change.status,
        postedAmount: units(change.postedAmount),
        transferId: change.transferId,
        resolutionKey: change.key,
        resolvedAt: change.now,
        ...(change.expired ? { expiredAt: change.now } : {}),
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
  },

  /** Pending holds whose timeout has passed at `now`, oldest first (at most `limit`). */
  async dueHolds(ex: Executor, now: Date, limit: number): Promise<string[]> {
    const rows = await ex
      .selectFrom('ledgerHolds')
      .select('id')
      .where('status', '=', 'pending')
      .where('expiresAt', 'is not', null)
      .where('expiresAt', '<=', now)
      .orderBy('expiresAt')
      .orderBy('id')
      .limit(limit)
      .execute()
    return rows.map((r) => r.id)
  },
}
