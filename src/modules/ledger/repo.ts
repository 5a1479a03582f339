// The SQL of the ledger's accounts, transfers and entries (holds: holds-repo.ts). Callers pass the
// database or their transaction.
import { sql } from 'kysely'
import { sendAhead } from '../../db/ahead.ts'
import type { Executor, Tx } from '../../db/index.ts'
import { registerPreparedFunction } from '../../db/prepared.ts'
import { registerWritingFunction } from '../../db/read-cache.ts'
import type { LedgerAccountKind } from '../../db/tables/ledger.ts'
import { holdsRepo } from './holds-repo.ts'
import { type HoldPosted, units } from './write.ts'

// A whole transfer may be written by one database function call: the read caches (wallet
// balances) must count it as the write it is.
registerWritingFunction('ledger_write_transfer', ['ledger_accounts', 'ledger_entries', 'ledger_transfers'])
// The money path's hottest statement, the same text on every call: parsed and planned once per
// connection.
registerPreparedFunction('ledger_write_transfer')

/** A transfer's own row as the repo writes it (`key` is its idempotency key). */
export interface TransferRow {
  id: string
  key: string
  inputHash: string
  coin: string
  kind: string
  description: string
  now: Date
}

interface NewAccountRow {
  id: string
  kind: LedgerAccountKind
  ownerId: string
  coin: string
  now: Date
}

/** A new account's row: a zero balance. */
const accountValues = (row: NewAccountRow) => ({
  id: row.id,
  kind: row.kind,
  ownerId: row.ownerId,
  coin: row.coin,
  balance: '0',
  createdAt: row.now,
  updatedAt: row.now,
})

export const ledgerRepo = {
  /** A page of accounts not of `except` kinds, by id ascending after `after`, with cached balances. */
  holdingsPage(ex: Executor, except: readonly LedgerAccountKind[], after: string, limit: number) {
    return ex
      .selectFrom('ledgerAccounts')
      .select(['id', 'kind', 'ownerId', 'coin', 'balance'])
      .where('kind', 'not in', except)
      .where('id', '>', after)
      .orderBy('id')
      .limit(limit)
      .execute()
  },

  async accountId(ex: Executor, kind: LedgerAccountKind, ownerId: string, coin: string) {
    const row = await ex
      .selectFrom('ledgerAccounts')
      .select('id')
      .where('kind', '=', kind)
      .where('ownerId', '=', ownerId)
      .where('coin', '=', coin)
      .executeTakeFirst()
    return row?.id
  },

  /**
   * The id of the account (kind, owner, coin), inserted with a zero balance when missing, in one
   * statement: the inserted row, or the one already there. Undefined only when a concurrent
   * transaction inserted it after this statement's snapshot was taken (the insert then does
   * nothing and the snapshot does not see that row): a read in a later statement finds it.
   */
  /** The insert of a new owner's account, built for the caller's statement (not executed). */
  insertAccount(ex: Executor, row: NewAccountRow) {
    return ex.insertInto('ledgerAccounts').values(accountValues(row))
  },

  async insertOrFindAccount(ex: Executor, row: NewAccountRow): Promise<string | undefined> {
    const found = await ex
      .with('ins', (db) =>
        db
          .insertInto('ledgerAccounts')
          .values(accountValues(row))
          .onConflict((oc) => oc.columns(['kind', 'ownerId', 'coin']).doNothing())
          .returning('id'),
      )
      .selectFrom('ins')
      .select('id')
      .unionAll((eb) =>
        eb
          .selectFrom('ledgerAccounts')
          .select('id')
          .where('kind', '=', row.kind)
          .where('ownerId', '=', row.ownerId)
          .where('coin', '=', row.coin)
          .where((w) => w.not(w.exists(w.selectFrom('ins').select('ins.id')))),
      )
      .executeTakeFirst()
    return found?.id
  },

  async accounts(ex: Executor, ids: string[], opts: { forUpdate?: boolean } = {}) {
    if (ids.length === 0) return []
    let q = ex
      .selectFrom('ledgerAccounts')
      .select(['id', 'kind', 'ownerId', 'coin', 'balance', 'held'])
      .where('id', 'in', ids)
      .orderBy('id')
    if (opts.forUpdate) q = q.forUpdate()
    return q.execute()
  },

  async accountsOf(
    ex: Executor,
    kind: LedgerAccountKind,
    ownerId: string,
    coin?: string,
    opts: { forUpdate?: boolean } = {},
  ) {
    let q = ex
      .selectFrom('ledgerAccounts')
      .select(['id', 'kind', 'ownerId', 'coin', 'balance', 'held'])
      .where('kind', '=', kind)
      .where('ownerId', '=', ownerId)
    if (coin !== undefined) q = q.where('coin', '=', coin)
    if (opts.forUpdate) q = q.forUpdate()
    return q.execute()
  },

  /** Sums of entries per account: the balance of accounts that keep no cached one. */
  async entrySums(ex: Executor, accountIds: string[]): Promise<Map<string, bigint>> {
    if (accountIds.length === 0) return new Map()
    const rows = await ex
      .selectFrom('ledgerEntries')
      .select(['accountId', (eb) => eb.fn.sum<string>('amount').as('total')])
      .where('accountId', 'in', accountIds)
      .groupBy('accountId')
      .execute()
    return new Map(rows.map((r) => [r.accountId, BigInt(r.total)]))
  },

  /** Sent ahead (src/db/ahead.ts): the caller locked the row and checked the change. */
  async changeBalance(tx: Tx, id: string, balanceDelta: bigint, heldDelta: bigint, now: Date) {
    await sendAhead(
      tx,
      tx
        .updateTable('ledgerAccounts')
        .set({
          balance: sql`balance + ${units(balanceDelta)}::numeric`,
          held: sql`held + ${units(heldDelta)}::numeric`,
          updatedAt: now,
        })
        .where('id', '=', id),
    )
  },

  /**
   * A whole transfer in one round trip (the `ledger_write_transfer` function, migrations 0034 and
   * 0037): claims the key; unless another transfer holds it, updates the `changes` rows (the
   * non-system accounts, in id order) one by one, each update checking that the row is not left
   * below what its pending holds reserve, then inserts the entries. When a row is missing or would
   * be overdrawn, the rows already changed are changed back and nothing but the claim stays
   * written (the caller throws, rolling back its transaction).
   */
  async writeTransfer(
    tx: Tx,
    row: TransferRow,
    changes: { account: string; delta: bigint; released: bigint }[],
    legs: [string, bigint][],
    posts?: HoldPosted,
  ): Promise<{ claimed: boolean; present: number; fits: boolean }> {
    const call = sql`ledger_write_transfer(
        ${row.id}, ${row.key}, ${row.inputHash}, ${row.coin}, ${row.kind}, ${row.description}, ${row.now},
        ${changes.map((c) => c.account)}::char(24)[],
        ${changes.map((c) => units(c.delta))}::numeric[],
        ${changes.map((c) => units(c.released))}::numeric[],
        ${legs.map(([account]) => account)}::char(24)[],
        ${legs.map(([, amount]) => units(amount))}::numeric[])`
    type Written = { claimed: boolean; present: number; fits: boolean }
    if (!posts) return (await sql<Written>`select claimed, present, fits from ${call}`.execute(tx)).rows[0]!
    // The hold is marked posted by the same statement, only when the transfer was written (its
    // key claimed, every row present, the balance rule kept); otherwise the caller throws.
    const { rows } = await sql<Written>`
      with w as (select claimed, present, fits from ${call}),
      posted as (${holdsRepo
        .resolution(tx, posts.hold, {
          status: 'posted',
          postedAmount: posts.postedAmount,
          transferId: row.id,
          key: row.key,
          now: row.now,
        })
        .where(
          sql<boolean>`exists (select 1 from w where w.claimed and w.fits and w.present = ${changes.length})`,
        )})
      select claimed, present, fits from w`.execute(tx)
    return rows[0]!
  },

  /**
   * Locks the accounts `ids` in id order (as every transfer takes its rows) for the rest of `tx`
   * and answers what each that exists may spend (its balance less its pending holds).
   */
  async lockAvailable(tx: Tx, ids: string[]): Promise<Map<string, bigint>> {
    const { rows } = await sql<{ id: string; available: string }>`
      select id, (balance - held)::text as available from ledger_accounts
       where id = any(${ids}::char(24)[]) order by id for no key update`.execute(tx)
    return new Map(rows.map((r) => [r.id, BigInt(r.available)]))
  },

  /** Which of the idempotency keys `keys` transfers have already claimed. */
  async usedKeys(ex: Executor, keys: string[]): Promise<Set<string>> {
    const rows = await ex
      .selectFrom('ledgerTransfers')
      .select('idempotencyKey')
      .where('idempotencyKey', 'in', keys)
      .execute()
    return new Set(rows.map((r) => r.idempotencyKey))
  },

  /**
   * Many transfers in one statement, their rows locked by `lockAvailable` and checked by the
   * caller: claims every key, changes each account once by its net delta (refusing, row by row,
   * one left below what its holds reserve), inserts every entry. Answers how many keys were
   * claimed and how many accounts changed; fewer than asked means a concurrent writer got there
   * first, and the caller rolls back.
   */
  async writeBatch(
    tx: Tx,
    now: Date,
    transfers: Omit<TransferRow, 'now'>[],
    nets: { account: string; delta: bigint }[],
    entries: { transferId: string; account: string; coin: string; amount: bigint }[],
  ): Promise<{ claimed: number; moved: number }> {
    const { rows } = await sql<{ claimed: number; moved: number }>`
      with claimed as (
        insert into ledger_transfers (id, idempotency_key, input_hash, coin, kind, description, created_at)
        select t.id, t.key, t.hash, t.coin, t.kind, t.description, ${now}
          from unnest(${transfers.map((t) => t.id)}::char(24)[], ${transfers.map((t) => t.key)}::text[],
                      ${transfers.map((t) => t.inputHash)}::text[], ${transfers.map((t) => t.coin)}::text[],
                      ${transfers.map((t) => t.kind)}::text[], ${transfers.map((t) => t.description)}::text[])
               as t (id, key, hash, coin, kind, description)
        on conflict (idempotency_key) do nothing
        returning 1
      ), moved as (
        update ledger_accounts a set balance = a.balance + d.delta, updated_at = ${now}
          from unnest(${nets.map((n) => n.account)}::char(24)[], ${nets.map((n) => units(n.delta))}::numeric[])
               as d (id, delta)
         where a.id = d.id and (d.delta >= 0 or a.balance - a.held + d.delta >= 0)
        returning 1
      ), entered as (
        insert into ledger_entries (transfer_id, account_id, coin, amount, created_at)
        select e.transfer_id, e.account_id, e.coin, e.amount, ${now}
          from unnest(${entries.map((e) => e.transferId)}::char(24)[], ${entries.map((e) => e.account)}::char(24)[],
                      ${entries.map((e) => e.coin)}::text[], ${entries.map((e) => units(e.amount))}::numeric[])
               with ordinality as e (transfer_id, account_id, coin, amount, ord)
         order by e.ord
        returning 1
      )
      select (select count(*) from claimed)::int as claimed, (select count(*) from moved)::int as moved`.execute(
      tx,
    )
    return rows[0]!
  },

  async transferByKey(ex: Executor, key: string) {
    return ex
      .selectFrom('ledgerTransfers')
      .select(['id', 'coin', 'kind', 'inputHash'])
      .where('idempotencyKey', '=', key)
      .executeTakeFirst()
  },

  async entries(ex: Executor, transferId: string) {
    const rows = await ex
      .selectFrom('ledgerEntries')
      .select(['accountId', 'coin', 'amount'])
      .where('transferId', '=', transferId)
      .orderBy('id')
      .execute()
    return rows.map((r) => ({ ...r, amount: BigInt(r.amount) }))
  },
}
