// The people search's tag filter by index: each account keeps the keys of its tags (`tag_keys`,
// written with the tag set, like collections.tag_keys), indexed by GIN over the listed accounts, so
// a search with tags and words combines two index scans instead of probing user_tags per account.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table users add column tag_keys text[] not null default '{}'`.execute(db)
  await sql`
    update users u set tag_keys = s.keys
      from (select ut.user_id, array_agg(t.key order by ut.position) as keys
              from user_tags ut join tags t on t.id = ut.tag_id group by ut.user_id) s
     where s.user_id = u.id`.execute(db)
  await sql`
    create index users_tag_keys on users using gin (tag_keys) with (fastupdate = off)
    where deleted_at is null and email_verified`.execute(db)
}
