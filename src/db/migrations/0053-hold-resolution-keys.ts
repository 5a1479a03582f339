// Two-phase holds resolve as TigerBeetle's pending transfers do: a post or void carries an
// idempotency key, stored with the hold (`resolution_key`); the same key again answers the first
// result, another key is an error (already posted / already voided / expired). A hold may carry a
// timeout (`expires_at`) after which it voids itself (`expired_at` set with the void).
// Holds resolved before keys were stored get the key their resolution had: the posting transfer's
// own key for a posted hold, `hold:<id>:void` for a voided one.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table ledger_holds
      add column resolution_key text,
      add column expires_at timestamptz,
      add column expired_at timestamptz`.execute(db)
  await sql`
    update ledger_holds h set resolution_key = t.idempotency_key
    from ledger_transfers t where h.status = 'posted' and t.id = h.transfer_id`.execute(db)
  await sql`
    update ledger_holds set resolution_key = 'hold:' || id || ':void'
    where status = 'voided' and resolution_key is null`.execute(db)
  await sql`
    alter table ledger_holds
      add constraint ledger_holds_resolution_key check ((status = 'pending') = (resolution_key is null)),
      add constraint ledger_holds_expired check (expired_at is null or status = 'voided')`.execute(db)
  // The expiry sweep reads only pending holds that carry a timeout.
  await sql`
    create index ledger_holds_expiry on ledger_holds (expires_at)
    where status = 'pending' and expires_at is not null`.execute(db)
}
