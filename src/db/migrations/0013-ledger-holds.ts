// Two-phase holds and input-checked idempotency for the ledger.
// - A hold reserves part of an account's balance (`held`) until it is posted (in full or in part,
//   to any accounts of its coin) or voided, at most once. Available = balance - held.
// - A transfer's idempotency key is stored with a hash of its input: the same key with another
//   input is a conflict, never a silent replay. Rows written before this migration have no hash.
// - System accounts (the chain's clearing account, the platform fee account) no longer keep a
//   cached balance: every settlement would otherwise queue on their one row. Their balance is the
//   sum of their entries.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table ledger_transfers add column input_hash text not null default ''`.execute(db)
  await sql`
    alter table ledger_accounts
      add column held numeric(78, 0) not null default 0,
      add constraint ledger_accounts_held check (
        held >= 0 and (kind in ('chain', 'platform_fee') or balance - held >= 0))`.execute(db)
  await sql`update ledger_accounts set balance = 0 where kind in ('chain', 'platform_fee')`.execute(db)

  await sql`
    create table ledger_holds (
      id char(24) primary key,
      idempotency_key text not null unique,
      input_hash text not null,
      account_id char(24) not null references ledger_accounts(id),
      coin text not null,
      amount numeric(78, 0) not null check (amount > 0),
      status text not null default 'pending' check (status in ('pending', 'posted', 'voided')),
      posted_amount numeric(78, 0) not null default 0,
      transfer_id char(24) references ledger_transfers(id),
      kind text not null default '',
      description text not null default '',
      created_at timestamptz not null default now(),
      resolved_at timestamptz,
      constraint ledger_holds_posted check (posted_amount >= 0 and posted_amount <= amount),
      constraint ledger_holds_resolved check ((status = 'pending') = (resolved_at is null))
    )`.execute(db)
  await sql`create index ledger_holds_pending on ledger_holds (account_id) where status = 'pending'`.execute(
    db,
  )
}
