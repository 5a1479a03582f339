// Settlement safety: coins halted by reconciliation or a deep reorg (crediting and sending stop
// until an operator resumes them), the stored result of every reconciliation run, and what the
// deposit watcher needs to report credits through jobs and to park movements of a halted coin.
// Also: a transaction record made while no USD rate could be had stores no rate (never 0).
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // `account_id`: the ledger account a deposit credited. `reported_at`: when the credit's report
  // (the deposit.credited job) was handled, so it is handled once. `tx_index`: the transaction's
  // position in its block (order of application). `held`: the movement of a halted coin, parked
  // without a ledger transfer until the coin is resumed.
  await sql`
    alter table chain_events
      add column account_id char(24),
      add column reported_at timestamptz,
      add column tx_index integer,
      add column held jsonb`.execute(db)
  // Deposits credited before reports existed were handled by then.
  await sql`update chain_events set reported_at = created_at where kind = 'deposit'`.execute(db)
  await sql`
    create index chain_events_unreported on chain_events (address)
    where kind = 'deposit' and reported_at is null`.execute(db)
  await sql`create index chain_events_held on chain_events (coin, block_number) where held is not null`.execute(
    db,
  )

  // One open halt per coin at most; a cleared halt stays as history (who cleared it, and why).
  await sql`
    create table coin_halts (
      id char(24) primary key,
      coin text not null,
      reason text not null check (reason in ('ledger_mismatch', 'ledger_invariant', 'reorg', 'manual')),
      details jsonb not null default '{}'::jsonb,
      halted_by text not null default 'system',
      halted_at timestamptz not null default now(),
      cleared_at timestamptz,
      cleared_by text,
      clear_reason text
    )`.execute(db)
  await sql`create unique index coin_halts_open on coin_halts (coin) where cleared_at is null`.execute(db)

  await sql`
    create table reconciliation_runs (
      id char(24) primary key,
      chain_id text not null,
      status text not null check (status in ('ok', 'mismatch', 'failed')),
      block_number bigint,
      violations jsonb not null default '[]'::jsonb,
      error text,
      started_at timestamptz not null,
      finished_at timestamptz not null
    )`.execute(db)
  await sql`create index reconciliation_runs_started on reconciliation_runs (started_at desc)`.execute(db)
  await sql`
    create table reconciliation_results (
      run_id char(24) not null references reconciliation_runs(id),
      coin text not null,
      ledger_total numeric(78,0) not null,
      chain_total numeric(78,0) not null,
      drift numeric(78,0) not null,
      addresses_checked integer not null,
      addresses_skipped integer not null,
      mismatches jsonb not null default '[]'::jsonb,
      primary key (run_id, coin)
    )`.execute(db)

  await sql`
    alter table transactions
      alter column rate drop not null,
      alter column rate drop default,
      alter column usd_value drop not null,
      alter column usd_value drop default`.execute(db)
}
