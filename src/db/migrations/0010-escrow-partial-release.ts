// Releasing an escrow in parts (the collection payment API): what has been released so far is
// kept on the escrow, and each release (a part, the rest, or all at once) is one row. An escrow
// funded for a collection without an assigned receiver has no receiver until its release.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table escrows alter column receiver_id drop not null`.execute(db)
  await sql`
    alter table escrows
      add column released_cents numeric(20, 0) not null default 0,
      add column released_payout numeric(78, 0) not null default 0,
      add column released_fee numeric(78, 0) not null default 0,
      add constraint escrows_released_cents check (released_cents >= 0 and released_cents <= escrow_cents),
      add constraint escrows_released_payout check (released_payout >= 0 and released_payout <= coin_escrow_amount),
      add constraint escrows_released_fee check (released_fee >= 0 and released_fee <= expected_fee)`.execute(
    db,
  )

  // One row per release call that moved value: `cents` of the price, paid as `payout` to the
  // receiver and `fee` (of which `network_fee` to the gas wallet, the rest to the treasury);
  // `refund` is the overpayment returned with the last part. `request_key` is the caller's
  // Idempotency-Key, so a request run twice releases once.
  await sql`
    create table escrow_releases (
      id char(24) primary key,
      escrow_id char(24) not null references escrows(id),
      receiver_id char(24) not null references users(id),
      cents numeric(20, 0) not null check (cents > 0),
      payout numeric(78, 0) not null check (payout >= 0),
      fee numeric(78, 0) not null check (fee >= 0),
      network_fee numeric(78, 0) not null check (network_fee >= 0 and network_fee <= fee),
      refund numeric(78, 0) not null default 0 check (refund >= 0),
      final boolean not null,
      request_key text,
      created_at timestamptz not null default now(),
      unique (escrow_id, request_key)
    )`.execute(db)
  await sql`create index escrow_releases_escrow on escrow_releases (escrow_id, created_at)`.execute(db)
}
