// Restores that meet the chain:
// - `platform_transfer_findings`: a transaction the deposit watcher found leaving a custodial
//   address whose key was never exported, that no outgoing transfer of this database signed (a
//   database restored from before the platform signed it). Its coins halt with the reason
//   `unknown_platform_transfer`, its movements stay parked, and an operator re-attaches it to the
//   withdrawal it was (recreated, or an open one of the copy) or books it as an outside transfer.
// - jobs parked by a restore (`status = 'parked'`) are listed by this index.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table platform_transfer_findings (
      id char(24) primary key,
      chain_id text not null,
      tx_hash text not null,
      address text not null,
      owner_kind text not null,
      owner_id text not null,
      coin text not null,
      amount numeric(78, 0) not null check (amount >= 0),
      to_address text,
      gas_coin text,
      gas_fee numeric(78, 0) not null default 0 check (gas_fee >= 0),
      block_number bigint not null,
      status text not null default 'open' check (status in ('open', 'reattached', 'external')),
      withdrawal_id char(24),
      transfer_id char(24),
      detected_at timestamptz not null,
      resolved_at timestamptz,
      resolved_by text,
      resolve_reason text,
      constraint platform_transfer_findings_tx unique (chain_id, tx_hash),
      constraint platform_transfer_findings_resolved check ((status = 'open') = (resolved_at is null))
    )`.execute(db)
  await sql`create index platform_transfer_findings_recent on platform_transfer_findings (detected_at desc, id desc)`.execute(
    db,
  )
  await sql`alter table coin_halts drop constraint if exists coin_halts_reason_check`.execute(db)
  await sql`
    alter table coin_halts add constraint coin_halts_reason_check check (reason in
      ('ledger_mismatch', 'ledger_invariant', 'reorg', 'manual', 'unknown_platform_transfer'))`.execute(db)
  await sql`create index jobs_parked on jobs (created_at, id) where status = 'parked'`.execute(db)
}
