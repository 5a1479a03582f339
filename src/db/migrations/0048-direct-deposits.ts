// Direct deposits: public payment orders for a collection. Each order is an escrow of the
// collection (its own custodial address, credited by the deposit watcher); this table keeps who
// paid (an email and/or the address refunds go to), when the order expires, and what is owed to a
// payer who left only an email (refunded by an operator).
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table direct_deposits (
      id char(24) primary key,
      escrow_id char(24) not null unique references escrows (id),
      collection_id char(24) not null references collections (id),
      payer_email text,
      payer_address text check (payer_address ~ '^0x[0-9a-f]{40}$'),
      expires_at timestamptz not null,
      expired_at timestamptz,
      operator_refund numeric(78, 0) not null default 0 check (operator_refund >= 0),
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check (payer_email is not null or payer_address is not null)
    )`.execute(db)
  await sql`
    create index direct_deposits_collection on direct_deposits (collection_id, created_at desc)`.execute(db)
  await sql`
    create index direct_deposits_operator_refund on direct_deposits (updated_at)
      where operator_refund > 0`.execute(db)
}
