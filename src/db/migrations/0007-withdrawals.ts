// Withdrawals to outside addresses, and the crash-safe sender of outgoing chain transfers that
// withdrawals and escrow payouts share: the transfers (with their signed transaction stored before
// it is broadcast) and the next nonce of every sending address.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // One row per transfer the platform sends. `raw`/`tx_hash` are written (with the nonce) in the
  // same transaction that allocates the nonce, before anything is broadcast, so a restarted worker
  // re-broadcasts the same transaction instead of signing a second one.
  await sql`
    create table outgoing_transfers (
      id char(24) primary key,
      chain_id text not null,
      idempotency_key text not null unique,
      purpose text not null,
      reference_id text not null default '',
      from_kind text not null check (from_kind in ('user', 'escrow', 'treasury', 'platform')),
      from_owner_id text not null,
      from_address text not null,
      coin text not null,
      to_address text not null,
      amount numeric(78,0) not null check (amount >= 0),
      funding_account_id char(24),
      credit_account_id char(24),
      status text not null default 'queued'
        check (status in ('queued', 'signed', 'sent', 'completed', 'failed')),
      started_at timestamptz,
      failures integer not null default 0,
      errors jsonb not null default '[]'::jsonb,
      wake_seq integer not null default 0,
      gas_reserved numeric(78,0) not null default 0,
      gas_limit numeric(78,0),
      max_fee numeric(78,0),
      nonce bigint,
      raw text,
      tx_hash text,
      signed_at timestamptz,
      broadcast_at timestamptz,
      receipt jsonb,
      error jsonb,
      meta jsonb not null default '{}'::jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      settled_at timestamptz
    )`.execute(db)
  await sql`create index outgoing_transfers_reference on outgoing_transfers (purpose, reference_id)`.execute(
    db,
  )
  await sql`create unique index outgoing_transfers_nonce on outgoing_transfers (chain_id, from_address, nonce) where nonce is not null`.execute(
    db,
  )
  await sql`create index outgoing_transfers_open on outgoing_transfers (to_address, purpose) where status in ('queued', 'signed', 'sent')`.execute(
    db,
  )

  // The next nonce the platform gives each sending address; its row is locked while a nonce is
  // taken so two transfers never get the same one.
  await sql`
    create table outgoing_nonces (
      chain_id text not null,
      address text not null,
      next_nonce bigint not null default 0,
      updated_at timestamptz not null default now(),
      primary key (chain_id, address)
    )`.execute(db)

  await sql`
    create table withdrawals (
      id char(24) primary key,
      owner_id char(24) not null references users(id),
      coin text not null,
      address text not null,
      amount numeric(78,0) not null check (amount > 0),
      fee numeric(78,0) not null check (fee >= 0),
      usd_value numeric(30,2) not null default 0,
      usd_rate text not null default '0',
      status text not null default 'pending'
        check (status in ('pending', 'processing', 'completed', 'failed')),
      retry_count integer not null default 0,
      err_msg jsonb not null default '[]'::jsonb,
      outgoing_id char(24) references outgoing_transfers(id),
      transaction_id char(24),
      tx_hash text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0
    )`.execute(db)
  await sql`create index withdrawals_owner on withdrawals (owner_id, created_at desc, id desc)`.execute(db)
}
