// Every signed transaction of an outgoing transfer: the first, and each replacement of a stuck one
// (same nonce, higher fees), each stored before it is broadcast. Whichever is mined settles the
// transfer (`mined`); the others are recorded as `replaced`.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table outgoing_transactions (
      transfer_id char(24) not null references outgoing_transfers (id),
      seq integer not null,
      tx_hash text not null,
      raw text not null,
      max_fee numeric(78,0) not null,
      status text not null default 'pending' check (status in ('pending', 'mined', 'replaced')),
      signed_at timestamptz not null,
      primary key (transfer_id, seq)
    )`.execute(db)
  await sql`create unique index outgoing_transactions_hash on outgoing_transactions (tx_hash)`.execute(db)
  // The transactions signed before this table existed are each transfer's first.
  await sql`
    insert into outgoing_transactions (transfer_id, seq, tx_hash, raw, max_fee, status, signed_at)
    select id, 0, tx_hash, raw, coalesce(max_fee, 0),
           case when status = 'completed' then 'mined' else 'pending' end,
           coalesce(signed_at, created_at)
    from outgoing_transfers
    where raw is not null and tx_hash is not null`.execute(db)
}
