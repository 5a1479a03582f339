// Outgoing transfers report their outcomes through jobs. `outgoing_postings`: the ledger postings
// out of a transfer's funding account that settlement books in the transaction that settles it
// (on success, e.g. a withdrawal's fee; on failure, the held value back to the wallet).
// `outgoing_events`: each reported event (started, a failed attempt, the outcome) applied by its
// caller's handler, written in the handler's transaction so that a report runs once.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table outgoing_postings (
      transfer_id char(24) not null references outgoing_transfers (id),
      outcome text not null check (outcome in ('completed', 'failed')),
      seq integer not null,
      idempotency_key text not null,
      account_kind text not null,
      account_owner_id text not null,
      amount numeric(78,0) not null check (amount > 0),
      kind text not null,
      description text not null default '',
      ledger_transfer_id char(24),
      primary key (transfer_id, outcome, seq)
    )`.execute(db)
  await sql`
    create table outgoing_events (
      transfer_id char(24) not null references outgoing_transfers (id),
      event text not null,
      applied_at timestamptz not null default now(),
      primary key (transfer_id, event)
    )`.execute(db)

  // Transfers still open were enqueued when their callers booked these themselves on settlement:
  // the same postings (same keys) are written for them now.
  await sql`
    insert into outgoing_postings
      (transfer_id, outcome, seq, idempotency_key, account_kind, account_owner_id, amount, kind, description)
    select t.id, 'completed', 0, 'withdrawal:' || w.id || ':fee', 'treasury', t.from_address, w.fee,
           'withdrawal.fee', ''
    from outgoing_transfers t join withdrawals w on w.outgoing_id = t.id
    where t.purpose = 'withdrawal' and t.status in ('queued', 'signed', 'sent') and w.fee > 0`.execute(db)
  await sql`
    insert into outgoing_postings
      (transfer_id, outcome, seq, idempotency_key, account_kind, account_owner_id, amount, kind, description)
    select t.id, 'failed', 0, 'withdrawal:' || w.id || ':release', 'user', w.owner_id, w.amount + w.fee,
           'withdrawal.release', 'Withdrawal ' || w.id || ' failed: amount and fee released'
    from outgoing_transfers t join withdrawals w on w.outgoing_id = t.id
    where t.purpose = 'withdrawal' and t.status in ('queued', 'signed', 'sent')`.execute(db)
  await sql`
    insert into outgoing_postings
      (transfer_id, outcome, seq, idempotency_key, account_kind, account_owner_id, amount, kind, description)
    select t.id, 'failed', 0, 'escrow-pay:' || (t.meta ->> 'holdKey') || ':return', 'user', e.payer_id,
           t.amount, 'escrow.pay.return', ''
    from outgoing_transfers t join escrows e on e.id = t.reference_id
    where t.purpose = 'escrow.pay' and t.status in ('queued', 'signed', 'sent')`.execute(db)
}
