// Escrows (a quote, a payment address and a status per collection) and the on-chain legs that move
// an escrow's funds out: payout, network fee, platform fee, refund of an overpayment or of a
// cancelled escrow, and the funding of a child escrow.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table escrows (
      id char(24) primary key,
      collection_id char(24) not null references collections(id),
      payer_id char(24) not null references users(id),
      receiver_id char(24) not null references users(id),
      parent_escrow_id char(24) references escrows(id),
      coin text not null,
      decimals integer not null,
      address text not null check (address ~ '^0x[0-9a-f]{40}$'),
      status text not null default 'waiting'
        check (status in ('waiting', 'paid', 'releasing', 'released', 'cancelled')),
      escrow_cents numeric(20, 0) not null check (escrow_cents > 0),
      rate text not null,
      fee_percent text not null,
      coin_escrow_amount numeric(78, 0) not null check (coin_escrow_amount > 0),
      expected_fee numeric(78, 0) not null check (expected_fee >= 0),
      amount_to_pay numeric(78, 0) not null check (amount_to_pay > 0),
      usd_fee_cents numeric(20, 0) not null,
      usd_amount_cents numeric(20, 0) not null,
      received numeric(78, 0) not null default 0 check (received >= 0),
      funded_to_children numeric(78, 0) not null default 0 check (funded_to_children >= 0),
      pay_transfer_id char(24),
      expires_at timestamptz not null,
      paid_at timestamptz,
      released_at timestamptz,
      cancelled_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0
    )`.execute(db)
  await sql`create index escrows_payer on escrows (payer_id, created_at desc)`.execute(db)
  await sql`create index escrows_receiver on escrows (receiver_id, created_at desc)`.execute(db)
  await sql`create index escrows_parent on escrows (parent_escrow_id) where parent_escrow_id is not null`.execute(
    db,
  )

  // One row per on-chain movement out of an escrow address, each sent by the outgoing sender
  // (`outgoing_id` is its current transfer; a retry after a final failure makes a new one).
  await sql`
    create table escrow_legs (
      id char(24) primary key,
      escrow_id char(24) not null references escrows(id),
      kind text not null check (kind in ('payout', 'fee', 'platformFee', 'refund', 'fund')),
      seq integer not null,
      to_address text not null,
      amount numeric(78, 0) not null check (amount > 0),
      status text not null default 'awaiting'
        check (status in ('awaiting', 'processing', 'completed', 'failed')),
      attempt integer not null default 0,
      failures integer not null default 0,
      outgoing_id char(24),
      tx_hash text,
      transaction_id char(24),
      last_error text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (escrow_id, seq)
    )`.execute(db)
}
