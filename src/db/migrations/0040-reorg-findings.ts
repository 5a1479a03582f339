// Deep reorganisations repaired, not only halted:
// - `reorg_findings`: one row per credited (or parked) deposit whose transaction a reorganisation
//   deeper than the confirmations took back; the hold that keeps its value from being spent, the
//   part the user had already spent (`shortfall`), and how an operator resolved it.
// - a ledger account kind of its own, `platform_loss`: a shortfall the platform bears when a
//   vanished deposit is reversed after part of it was spent (a system account, its balance the sum
//   of its entries, below zero by what was lost).
// - the system events of settlement (chain.reorg, coin.halted, coin.resumed, reorg.*,
//   reconciliation.*) are rows of `audit_log` without a user; the admin audit lists them, newest
//   first, through this index.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table reorg_findings (
      id char(24) primary key,
      chain_id text not null,
      tx_hash text not null,
      log_index integer not null,
      address text not null,
      owner_kind text not null,
      owner_id text not null,
      coin text not null,
      amount numeric(78, 0) not null check (amount > 0),
      block_number bigint not null,
      block_hash text not null,
      credited boolean not null,
      credit_transfer_id char(24),
      account_id char(24) references ledger_accounts (id),
      hold_id char(24) references ledger_holds (id),
      held numeric(78, 0) not null default 0 check (held >= 0),
      shortfall numeric(78, 0) not null default 0 check (shortfall >= 0),
      status text not null default 'open' check (status in ('open', 'reversed', 'kept', 'dropped')),
      detected_at timestamptz not null,
      resolved_at timestamptz,
      resolved_by text,
      resolve_reason text,
      reversal_transfer_id char(24),
      loss_transfer_id char(24),
      constraint reorg_findings_movement unique (chain_id, tx_hash, log_index, address),
      constraint reorg_findings_split check (held + shortfall <= amount),
      constraint reorg_findings_resolved check ((status = 'open') = (resolved_at is null))
    )`.execute(db)
  await sql`create index reorg_findings_open on reorg_findings (detected_at desc, id desc)`.execute(db)

  await sql`alter table ledger_accounts drop constraint if exists ledger_accounts_kind_check`.execute(db)
  await sql`
    alter table ledger_accounts add constraint ledger_accounts_kind_check check (kind in
      ('user', 'escrow', 'platform_fee', 'withdrawal_hold', 'treasury', 'chain', 'platform_loss'))`.execute(
    db,
  )

  await sql`
    create index audit_log_system on audit_log (created_at desc, id desc) where user_id is null`.execute(db)
}
