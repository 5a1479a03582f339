// The totals of the two unfiltered browse lists, kept as the rows change instead of counted per
// request: `list_counts` holds, per list, the number of rows everyone may see: `people` (live,
// verified, public accounts: the people search #40 without filters) and `collections` (live,
// public collections: the collection list #27 without filters). Statement triggers with
// transition tables add what each insert, update or delete changed, in the writing transaction, so
// a bulk insert costs one counter update and a change that does not touch listing costs none. Each
// count is spread over 16 slots (by the writing backend) so that concurrent writers rarely wait on
// one another; a read sums the slots.
import { type Kysely, sql } from 'kysely'

const LISTS = [
  {
    list: 'people',
    table: 'users',
    listed: (r: string) => sql.raw(`${r}.deleted_at is null and ${r}.email_verified and not ${r}.is_private`),
  },
  {
    list: 'collections',
    table: 'collections',
    listed: (r: string) => sql.raw(`not ${r}.is_deleted and not ${r}.is_private`),
  },
] as const

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table list_counts (
      list text not null,
      slot int not null,
      n bigint not null default 0,
      primary key (list, slot)
    )`.execute(db)
  await sql`
    create function list_counts_add(p_list text, p_delta bigint) returns void language plpgsql as $$
    begin
      if p_delta <> 0 then
        insert into list_counts (list, slot, n) values (p_list, pg_backend_pid() % 16, p_delta)
        on conflict (list, slot) do update set n = list_counts.n + excluded.n;
      end if;
    end
    $$`.execute(db)
  for (const { list, table, listed } of LISTS) {
    const fn = sql.raw(`${table}_list_count`)
    await sql`
      create function ${fn}() returns trigger language plpgsql as $$
      declare
        v_added bigint := 0;
        v_removed bigint := 0;
      begin
        if tg_op in ('INSERT', 'UPDATE') then
          select count(*) into v_added from new_rows r where ${listed('r')};
        end if;
        if tg_op in ('UPDATE', 'DELETE') then
          select count(*) into v_removed from old_rows r where ${listed('r')};
        end if;
        perform list_counts_add(${sql.lit(list)}, v_added - v_removed);
        return null;
      end
      $$`.execute(db)
    const t = sql.table(table)
    await sql`create trigger ${sql.raw(`${table}_list_count_insert`)} after insert on ${t}
      referencing new table as new_rows for each statement execute function ${fn}()`.execute(db)
    await sql`create trigger ${sql.raw(`${table}_list_count_update`)} after update on ${t}
      referencing old table as old_rows new table as new_rows for each statement execute function ${fn}()`.execute(
      db,
    )
    await sql`create trigger ${sql.raw(`${table}_list_count_delete`)} after delete on ${t}
      referencing old table as old_rows for each statement execute function ${fn}()`.execute(db)
    await sql`
      insert into list_counts (list, slot, n)
      select ${list}, 0, count(*) from ${t} r where ${listed('r')}`.execute(db)
  }
  // The private collections a viewer may see in the unfiltered list beside the public ones: those
  // they are invited to, by index (creator and receiver have theirs).
  await sql`
    create index collections_private_invitees on collections using gin (invitee_ids)
    where is_deleted = false and is_private`.execute(db)
}
