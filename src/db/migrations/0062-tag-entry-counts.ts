// Tag entry counts moved one row at a time, in the order of the tags' ids. A single UPDATE that
// joined a `for no key update` subquery (rows locked in id order) could still deadlock on
// PostgreSQL: when a locked row had a newer version than the statement's snapshot, the UPDATE
// re-locked it through the version chain, taking the old version's tuple lock while another
// transaction queued on it. One-row updates by primary key in a fixed order: a transaction only
// waits for a row above every row it holds, so two saves over overlapping tag sets queue instead
// of waiting on each other. The ids are of the column's type, so each update finds its row by the
// primary key's index.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function tags_add_entries(p_ids char(24)[], p_deltas int[], p_at timestamptz)
      returns void
    language plpgsql as $$
    declare
      r record;
    begin
      for r in
        select u.id, u.delta from unnest(p_ids, p_deltas) as u(id, delta) order by u.id collate "C"
      loop
        update tags set entry_count = greatest(entry_count + r.delta, 0), updated_at = p_at
        where id = r.id;
      end loop;
    end
    $$`.execute(db)
}
