// A ledger transfer in one round trip: `ledger_write_transfer` claims the idempotency key and,
// unless another transfer holds it, locks the changed (non-system) account rows in id order,
// checks that each exists and that none is left with less than its pending holds reserve, and
// only then changes their balances and inserts the entries. When a check fails nothing but the
// claim is written and the answer says which check failed: the ledger (modules/ledger) throws,
// rolling the caller's transaction back. A PL/pgSQL function rather than one statement sent each
// time: its statements are planned once per connection instead of on every transfer.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function ledger_write_transfer(
      p_id char(24),
      p_key text,
      p_input_hash text,
      p_coin text,
      p_kind text,
      p_description text,
      p_now timestamptz,
      -- the non-system accounts the transfer changes: balance by delta, held down by released
      p_accounts char(24)[],
      p_deltas numeric[],
      p_released numeric[],
      -- the entries, in order
      p_entry_accounts char(24)[],
      p_entry_amounts numeric[],
      -- the key was free (false: nothing was written, the key's first transfer answers)
      out claimed boolean,
      -- how many of p_accounts exist (all were locked)
      out present int,
      -- no account is left below what its pending holds reserve
      out fits boolean
    ) language plpgsql as $$
    declare
      v_changes int := coalesce(array_length(p_accounts, 1), 0);
    begin
      insert into ledger_transfers (id, idempotency_key, input_hash, coin, kind, description, created_at)
      values (p_id, p_key, p_input_hash, p_coin, p_kind, p_description, p_now)
      on conflict (idempotency_key) do nothing;
      claimed := found;
      present := 0;
      fits := false;
      if not claimed then
        return;
      end if;
      -- Locked in id order, so that transfers over the same accounts queue instead of deadlocking.
      select count(*)::int,
             coalesce(bool_and(c.delta >= 0 or l.balance - l.held + c.released + c.delta >= 0), true)
        into present, fits
        from (select a.id, a.balance, a.held from ledger_accounts a
              where a.id = any (p_accounts) order by a.id for no key update of a) l
        join unnest(p_accounts, p_deltas, p_released) as c (id, delta, released) on c.id = l.id;
      if present < v_changes or not fits then
        return;
      end if;
      update ledger_accounts a
         set balance = a.balance + c.delta, held = a.held - c.released, updated_at = p_now
        from unnest(p_accounts, p_deltas, p_released) as c (id, delta, released)
       where a.id = c.id;
      insert into ledger_entries (transfer_id, account_id, coin, amount, created_at)
      select p_id, e.account_id, p_coin, e.amount, p_now
        from unnest(p_entry_accounts, p_entry_amounts) with ordinality as e (account_id, amount, ord)
       order by e.ord;
    end
    $$`.execute(db)
}
