// Several holds on one account in one round trip: `ledger_write_holds` opens the account (kind,
// owner, coin) with a zero balance when it is missing, locks its row, claims each hold's
// idempotency key in order and, when the account's available balance covers every new hold
// together, raises its `held` once. A request's holds stand or fall together: when the first
// hold's key was used before, the request already ran and nothing is written; when a key was used
// with another input, or the balance does not cover the new holds, the holds this call claimed
// are deleted again, so nothing but the account (when it was missing) stays written even if the
// caller commits. The ledger (modules/ledger, `Ledger.holdMany`) computes the input hashes and
// turns the outcome into its answer or error.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function ledger_write_holds(
      -- the account's id when it is opened by this call; the ledger expects the row to have it
      p_account char(24),
      p_account_kind text,
      p_owner_id text,
      p_coin text,
      p_now timestamptz,
      -- the holds, in order
      p_ids char(24)[],
      p_keys text[],
      p_input_hashes text[],
      p_amounts numeric[],
      p_kinds text[],
      p_descriptions text[],
      p_expires_at timestamptz[],
      -- the account's id (another than p_account when the row existed under another id: then only
      -- the lock was taken and outcome is 'account')
      out account char(24),
      -- 'written' | 'replayed' (the first hold's key was used before with the same input: nothing
      -- written) | 'conflict' (a key used before with another input) | 'insufficient' | 'account'
      out outcome text,
      -- each hold's id (the first hold's of its key when replayed), up to the one that decided
      out hold_ids char(24)[],
      out replayed boolean[]
    ) language plpgsql as $$
    declare
      v_count int := coalesce(array_length(p_ids, 1), 0);
      v_available numeric;
      v_total numeric := 0;
      v_claimed char(24)[] := '{}';
      v_id char(24);
      v_hash text;
    begin
      hold_ids := '{}';
      replayed := '{}';
      insert into ledger_accounts (id, kind, owner_id, coin, balance, created_at, updated_at)
      values (p_account, p_account_kind, p_owner_id, p_coin, 0, p_now, p_now)
      on conflict (kind, owner_id, coin) do nothing;
      -- A row a concurrent transaction inserted is seen: this is a new statement.
      select a.id, a.balance - a.held into account, v_available
        from ledger_accounts a
       where a.kind = p_account_kind and a.owner_id = p_owner_id and a.coin = p_coin
         for update;
      if account is distinct from p_account then
        outcome := 'account';
        return;
      end if;
      for i in 1 .. v_count loop
        insert into ledger_holds (id, idempotency_key, input_hash, account_id, coin, amount, kind,
                                  description, expires_at, created_at)
        values (p_ids[i], p_keys[i], p_input_hashes[i], p_account, p_coin, p_amounts[i], p_kinds[i],
                p_descriptions[i], p_expires_at[i], p_now)
        on conflict (idempotency_key) do nothing;
        if found then
          v_claimed := v_claimed || p_ids[i];
          hold_ids := hold_ids || p_ids[i];
          replayed := replayed || false;
          v_total := v_total + p_amounts[i];
        else
          select h.id, h.input_hash into v_id, v_hash from ledger_holds h where h.idempotency_key = p_keys[i];
          if v_hash is distinct from p_input_hashes[i] then
            delete from ledger_holds h where h.id = any(v_claimed);
            hold_ids := hold_ids || v_id;
            replayed := replayed || true;
            outcome := 'conflict';
            return;
          end if;
          hold_ids := hold_ids || v_id;
          replayed := replayed || true;
          if i = 1 then
            outcome := 'replayed';
            return;
          end if;
        end if;
      end loop;
      if v_available < v_total then
        delete from ledger_holds h where h.id = any(v_claimed);
        outcome := 'insufficient';
        return;
      end if;
      if v_total > 0 then
        update ledger_accounts a set held = a.held + v_total, updated_at = p_now where a.id = p_account;
      end if;
      outcome := 'written';
    end
    $$`.execute(db)
}
