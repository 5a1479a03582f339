// Custodial keys, the double-entry ledger, the user-facing transactions, and the chain watcher's
// cursor and seen events.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // One secp256k1 key per owner (a user's wallet, an escrow's payment address, a platform
  // treasury). The private key is only ever stored sealed (AES-256-GCM envelope, bound to the
  // address as associated data). Addresses are stored lower-case.
  await sql`
    create table wallet_keys (
      id char(24) primary key,
      owner_kind text not null check (owner_kind in ('user', 'escrow', 'treasury')),
      owner_id text not null,
      address text not null check (address ~ '^0x[0-9a-f]{40}$'),
      sealed_key text not null,
      exported_at timestamptz,
      created_at timestamptz not null default now(),
      unique (owner_kind, owner_id)
    )`.execute(db)
  await sql`create unique index wallet_keys_address on wallet_keys (address)`.execute(db)

  // Balances are a cached sum of the entries of each account, updated in the same transaction
  // as the entries; only the chain's clearing account may go below zero (it mirrors value that
  // came in from outside custody).
  await sql`
    create table ledger_accounts (
      id char(24) primary key,
      kind text not null check (kind in ('user', 'escrow', 'platform_fee', 'withdrawal_hold', 'treasury', 'chain')),
      owner_id text not null default '',
      coin text not null,
      balance numeric(78,0) not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (kind, owner_id, coin),
      constraint ledger_accounts_non_negative check (kind = 'chain' or balance >= 0)
    )`.execute(db)

  await sql`
    create table ledger_transfers (
      id char(24) primary key,
      idempotency_key text not null unique,
      coin text not null,
      kind text not null default '',
      description text not null default '',
      created_at timestamptz not null default now()
    )`.execute(db)

  await sql`
    create table ledger_entries (
      id bigint generated always as identity primary key,
      transfer_id char(24) not null references ledger_transfers(id),
      account_id char(24) not null references ledger_accounts(id),
      coin text not null,
      amount numeric(78,0) not null check (amount <> 0),
      created_at timestamptz not null default now()
    )`.execute(db)
  await sql`create index ledger_entries_transfer on ledger_entries (transfer_id)`.execute(db)
  await sql`create index ledger_entries_account on ledger_entries (account_id, id)`.execute(db)

  // What the API shows as a user's transactions: a view of ledger movements and chain events.
  await sql`
    create table transactions (
      id char(24) primary key,
      owner_id char(24) not null references users(id),
      amount numeric(78,0) not null check (amount >= 0),
      coin text not null,
      chain_id text not null default '',
      usd_value numeric(30,2) not null default 0,
      rate text not null default '0',
      description text not null default '',
      tx_info jsonb,
      type text not null check (type in ('deposit', 'withdrawal')),
      method text not null,
      status text not null check (status in ('pending', 'completed', 'failed', 'cancelled')),
      is_fee boolean not null default false,
      is_platform_fee boolean not null default false,
      is_external boolean,
      response_data text not null default '',
      transfer_id char(24) references ledger_transfers(id),
      tx_hash text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0
    )`.execute(db)
  await sql`create index transactions_owner on transactions (owner_id, created_at desc, id desc)`.execute(db)

  // Where the watcher has read each chain up to (the last processed block and its hash).
  await sql`
    create table chain_cursors (
      chain_id text primary key,
      block_number bigint not null,
      block_hash text not null,
      updated_at timestamptz not null default now()
    )`.execute(db)

  // Every chain movement the watcher acted on, once: incoming value (deposit), outgoing value the
  // platform did not send (withdrawal) and gas paid by such transactions (fee). log_index is -1
  // for native value.
  await sql`
    create table chain_events (
      chain_id text not null,
      tx_hash text not null,
      log_index integer not null,
      kind text not null check (kind in ('deposit', 'withdrawal', 'fee')),
      address text not null,
      owner_kind text not null,
      owner_id text not null,
      coin text not null,
      amount numeric(78,0) not null,
      block_number bigint not null,
      block_hash text not null,
      transfer_id char(24) references ledger_transfers(id),
      transaction_id char(24),
      created_at timestamptz not null default now(),
      primary key (chain_id, tx_hash, log_index, kind, address)
    )`.execute(db)

  // Transactions the platform itself signs: the watcher does not count them as external
  // withdrawals of the sending address (their senders post the debit). What arrives at a
  // custodial address is still credited by the watcher, to `credit_account_id` when set (a gas
  // top-up belongs to the platform, not to the user whose address holds it).
  await sql`
    create table chain_outgoing (
      chain_id text not null,
      tx_hash text not null,
      address text not null,
      purpose text not null default '',
      credit_account_id char(24) references ledger_accounts(id),
      created_at timestamptz not null default now(),
      primary key (chain_id, tx_hash)
    )`.execute(db)
}
