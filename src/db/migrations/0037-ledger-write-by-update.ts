// `ledger_write_transfer` without a separate row lock: each changed (non-system) account row is
// updated on its own, in the caller's id order, by an UPDATE that carries the check (an existing
// row, and a debit that leaves at least what its pending holds reserve). The update takes the row
// lock itself, so transfers over the same accounts still queue in id order instead of
// deadlocking, and a row changed meanwhile is checked again on its latest version once its lock
// is free. Locking first (SELECT ... FOR NO KEY UPDATE, then UPDATE) wrote every row twice; this
// writes it once. Same signature and answers as before: when a row is missing or would be
// overdrawn, the rows this call already changed are changed back before it answers, so nothing
// but the claim of the key stays written (their `updated_at` shows the call).
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function ledger_write_transfer(
      p_id char(24),
      p_key text,
      p_input_hash text,
      p_coin text,
      p_kind text,
      p_description text,
      p_now timestamptz,
      -- the non-system accounts the transfer changes, in id order: balance by delta, held down by
      -- released
      p_accounts char(24)[],
      p_deltas numeric[],
      p_released numeric[],
      -- the entries, in order
      p_entry_accounts char(24)[],
      p_entry_amounts numeric[],
      -- the key was free (false: nothing was written, the key's first transfer answers)
      out claimed boolean,
      -- how many of p_accounts exist (less than all: nothing but the claim was written)
      out present int,
      -- no account is left below what its pending holds reserve (false: nothing but the claim
      -- was written)
      out fits boolean
    ) language plpgsql as $$
    declare
      v_changes int := coalesce(array_length(p_accounts, 1), 0);
    begin
      insert into ledger_transfers (id, idempotency_key, input_hash, coin, kind, description, created_at)
      values (p_id, p_key, p_input_hash, p_coin, p_kind, p_description, p_now)
      on conflict (idempotency_key) do nothing;
      claimed := found;
      present := v_changes;
      fits := true;
      if not claimed then
        return;
      end if;
      for i in 1 .. v_changes loop
        update ledger_accounts a
           set balance = a.balance + p_deltas[i], held = a.held - p_released[i], updated_at = p_now
         where a.id = p_accounts[i]
           and (p_deltas[i] >= 0 or a.balance - a.held + p_released[i] + p_deltas[i] >= 0);
        if not found then
          -- Refused: change back what this call changed, then say why.
          for j in 1 .. i - 1 loop
            update ledger_accounts a
               set balance = a.balance - p_deltas[j], held = a.held + p_released[j]
             where a.id = p_accounts[j];
          end loop;
          if exists (select from ledger_accounts a where a.id = p_accounts[i]) then
            fits := false;
          else
            present := v_changes - 1;
          end if;
          return;
        end if;
      end loop;
      insert into ledger_entries (transfer_id, account_id, coin, amount, created_at)
      select p_id, e.account_id, p_coin, e.amount, p_now
        from unnest(p_entry_accounts, p_entry_amounts) with ordinality as e (account_id, amount, ord)
       order by e.ord;
    end
    $$`.execute(db)
}
