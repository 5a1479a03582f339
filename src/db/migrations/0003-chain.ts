// Coins, chain configurations and the devnet journal (state changes of the embedded dev chain,
// replayed at start-up so its balances survive restarts).
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table chains (
      id char(24) primary key,
      rpc_name text not null,
      rpc_chain_id text not null,
      rpc_urls jsonb not null default '[]'::jsonb,
      block_explorer_urls jsonb not null default '[]'::jsonb,
      rpc_native_currency jsonb not null,
      active boolean not null default true,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0
    )`.execute(db)
  await sql`create unique index chains_rpc_chain_id on chains (rpc_chain_id)`.execute(db)

  await sql`
    create table coins (
      id char(24) primary key,
      name text not null,
      symbol text not null,
      reference text not null check (reference = lower(reference)),
      icon text not null default '',
      contract_address text,
      "decimal" integer not null check ("decimal" between 0 and 36),
      is_token boolean not null,
      rpc_chain_id text not null,
      active boolean not null default true,
      display_order integer not null default 0,
      usd_rate numeric not null default 0 check (usd_rate >= 0),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0,
      check ((contract_address is null) = (not is_token))
    )`.execute(db)
  await sql`create unique index coins_reference on coins (reference)`.execute(db)

  await sql`
    create table devnet_journal (
      seq bigserial primary key,
      method text not null,
      params jsonb not null,
      created_at timestamptz not null default now()
    )`.execute(db)
}
