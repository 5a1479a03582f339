// Domain events and what is fed from them: one durable row per state change (written in the
// change's transaction), each user's notifications with their read and mail state, the per-user
// mail digest latch and e-mail preferences, and per-viewer dismissals of feed entries.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table events (
      id char(24) primary key,
      type text not null,
      -- a change that may be reported more than once (a job run again) names itself here
      key text unique,
      actor_id char(24) references users (id),
      audience text[] not null default '{}',
      collection_id char(24),
      is_public boolean not null default false,
      data jsonb not null default '{}',
      created_at timestamptz not null
    )`.execute(db)
  // Feeds read "public, or addressed to me", newest first.
  await sql`create index events_time on events (created_at desc, id desc)`.execute(db)
  await sql`create index events_audience on events using gin (audience)`.execute(db)
  await sql`create index events_public on events (created_at desc, id desc) where is_public`.execute(db)
  await sql`create index events_collection on events (collection_id, created_at desc) where collection_id is not null`.execute(
    db,
  )

  await sql`
    create table notifications (
      id char(24) primary key,
      user_id char(24) not null references users (id),
      event_id char(24) not null references events (id),
      type text not null,
      title text not null,
      description text not null,
      actor_id char(24) references users (id),
      ref text not null default '',
      read_at timestamptz,
      email_wanted boolean not null default false,
      emailed_at timestamptz,
      created_at timestamptz not null,
      unique (event_id, user_id)
    )`.execute(db)
  await sql`create index notifications_owner on notifications (user_id, created_at desc, id desc)`.execute(db)
  await sql`create index notifications_unread on notifications (user_id) where read_at is null`.execute(db)
  await sql`create index notifications_unmailed on notifications (user_id, created_at) where email_wanted and emailed_at is null`.execute(
    db,
  )

  // One row per user who has had mail-worthy notifications: `pending` is set by the transaction
  // that adds the first unsent one (and enqueues the digest job), cleared by the digest job.
  await sql`
    create table notification_mailboxes (
      user_id char(24) primary key references users (id),
      pending boolean not null default false,
      updated_at timestamptz not null
    )`.execute(db)

  // Which notification types a user wants by e-mail; no row means the defaults.
  await sql`
    create table notification_settings (
      user_id char(24) primary key references users (id),
      email_types text[] not null,
      updated_at timestamptz not null
    )`.execute(db)

  // Feed entries a viewer dismissed, one by one or all up to a moment.
  await sql`
    create table feed_dismissals (
      user_id char(24) not null references users (id),
      event_id char(24) not null references events (id),
      created_at timestamptz not null,
      primary key (user_id, event_id)
    )`.execute(db)
  await sql`
    create table feed_cursors (
      user_id char(24) primary key references users (id),
      dismissed_before timestamptz not null
    )`.execute(db)
}
