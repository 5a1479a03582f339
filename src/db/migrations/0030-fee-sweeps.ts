// Sweeps of the platform's fees from its fee address to a cold address: each is an outgoing
// transfer funded by a ledger hold on the fee account, recorded here with who asked for it and why.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table fee_sweeps (
      id char(24) primary key,
      coin text not null,
      amount numeric(78,0) not null check (amount > 0),
      from_address text not null check (from_address ~ '^0x[0-9a-f]{40}$'),
      to_address text not null check (to_address ~ '^0x[0-9a-f]{40}$'),
      hold_id char(24) not null unique references ledger_holds (id),
      outgoing_id char(24) references outgoing_transfers (id),
      status text not null default 'pending' check (status in ('pending', 'confirmed', 'failed')),
      failures integer not null default 0,
      last_error text,
      tx_hash text,
      requested_by char(24) not null references users (id),
      reason text not null,
      request_key text unique,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      settled_at timestamptz
    )`.execute(db)
  await sql`create index fee_sweeps_coin on fee_sweeps (coin, created_at desc, id desc)`.execute(db)
}
