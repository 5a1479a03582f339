// The number of live private collections each user created, kept as the rows change instead of
// counted per request: the unfiltered collection list (#27) tells each viewer the number of every
// collection they may see, the public ones (`list_counts`, migration 0036) and the private ones
// they create, receive or are invited to. Received and invited ones are few per user and counted
// by their indexes; a creator's own may be hundreds of thousands (an agency's drafts), which a
// count reads entry by entry at every request. Statement triggers with transition tables add, per
// creator, what each insert, update or delete changed, in the writing transaction; a statement that
// changes no private collection's standing writes nothing, and the creators' rows are written in
// the order of their ids (two statements touching the same creators never wait on each other in a
// cycle).
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table collection_private_counts (
      creator_id char(24) primary key,
      n bigint not null default 0
    )`.execute(db)
  await sql`
    create function collections_private_count() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into collection_private_counts as k (creator_id, n)
        select r.creator_id, count(*) from new_rows r where r.is_private and not r.is_deleted
        group by r.creator_id order by r.creator_id
        on conflict (creator_id) do update set n = k.n + excluded.n;
      elsif tg_op = 'UPDATE' then
        insert into collection_private_counts as k (creator_id, n)
        select d.creator_id, sum(d.n) from (
          select r.creator_id, 1 as n from new_rows r where r.is_private and not r.is_deleted
          union all
          select r.creator_id, -1 from old_rows r where r.is_private and not r.is_deleted
        ) d
        group by d.creator_id having sum(d.n) <> 0 order by d.creator_id
        on conflict (creator_id) do update set n = k.n + excluded.n;
      else
        insert into collection_private_counts as k (creator_id, n)
        select r.creator_id, -count(*) from old_rows r where r.is_private and not r.is_deleted
        group by r.creator_id order by r.creator_id
        on conflict (creator_id) do update set n = k.n + excluded.n;
      end if;
      return null;
    end
    $$`.execute(db)
  await sql`create trigger collections_private_count_insert after insert on collections
    referencing new table as new_rows for each statement execute function collections_private_count()`.execute(
    db,
  )
  await sql`create trigger collections_private_count_update after update on collections
    referencing old table as old_rows new table as new_rows
    for each statement execute function collections_private_count()`.execute(db)
  await sql`create trigger collections_private_count_delete after delete on collections
    referencing old table as old_rows for each statement execute function collections_private_count()`.execute(
    db,
  )
  await sql`
    insert into collection_private_counts (creator_id, n)
    select creator_id, count(*) from collections where is_private and not is_deleted group by creator_id`.execute(
    db,
  )
}
