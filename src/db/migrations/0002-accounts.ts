// Accounts: profile tags (a link table, so a tag filter is an index lookup), achievements, pending
// two-factor setups, and the indexes of the people search.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table user_tags (
      user_id char(24) not null references users(id),
      tag_id char(24) not null references tags(id),
      position integer not null default 0,
      primary key (user_id, tag_id)
    )`.execute(db)
  await sql`create index user_tags_tag on user_tags (tag_id, user_id)`.execute(db)

  // One record per owner and kind; `total` counts the events (e.g. referred sign-ups).
  await sql`
    create table achievements (
      id char(24) primary key,
      owner char(24) not null references users(id),
      type text not null,
      total text not null default '0',
      value text not null default '0',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0,
      unique (owner, type)
    )`.execute(db)

  // A two-factor method being set up: kept apart from the live setting until a code proves it.
  await sql`
    create table two_fa_setups (
      user_id char(24) primary key references users(id),
      type text not null,
      secret text,
      created_at timestamptz not null default now()
    )`.execute(db)

  // People search: only live, verified accounts are ever listed, so every index is partial. The
  // word vector is stored, so a row the planner checks outside the index costs no re-parsing.
  await sql`
    alter table users add column search_vector tsvector
    generated always as (to_tsvector('simple', search_text)) stored`.execute(db)
  await sql`
    create index users_search_fts on users using gin (search_vector)
    where deleted_at is null and email_verified`.execute(db)
  await sql`
    create index users_listed on users (created_at desc, id desc)
    where deleted_at is null and email_verified`.execute(db)
}
