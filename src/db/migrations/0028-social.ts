// Collection types (the accepted values of a collection's `type`, seeded with the defaults),
// bookmarks of feed entries and invites beside collections and users, and referrals: invitations
// sent by e-mail with one's code and the first completed job of each referred account.
import { type Kysely, sql } from 'kysely'

/** The types accepted before they became configurable. */
export const DEFAULT_COLLECTION_TYPES = [
  { value: 'job', name: 'Job' },
  { value: 'gig', name: 'Gig' },
  { value: 'milestone', name: 'Milestone' },
  { value: 'deliverable', name: 'Deliverable' },
  { value: 'funding', name: 'Funding request' },
] as const

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table collection_types (
      id char(24) primary key,
      name text not null,
      value text not null,
      description text not null default '',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz
    )`.execute(db)
  // One row per value whatever its case: `Job` and `job` are the same type.
  await sql`create unique index collection_types_value on collection_types (lower(value))`.execute(db)
  let n = 0
  for (const t of DEFAULT_COLLECTION_TYPES) {
    // Fixed ids (creation order) so every database seeds the same records.
    const id = `0000000000000000000000${String(++n).padStart(2, '0')}`
    await sql`
      insert into collection_types (id, name, value) values (${id}, ${t.name}, ${t.value})
      on conflict do nothing`.execute(db)
  }

  await sql`alter table bookmarks drop constraint if exists bookmarks_type_check`.execute(db)
  await sql`
    alter table bookmarks add constraint bookmarks_type_check
      check (type in ('collection', 'user', 'feed', 'invite'))`.execute(db)

  // One row per inviter and address; sending again updates it (and counts).
  await sql`
    create table referral_invites (
      id char(24) primary key,
      user_id char(24) not null references users(id),
      email text not null,
      sent_count integer not null default 1 check (sent_count > 0),
      created_at timestamptz not null default now(),
      last_sent_at timestamptz not null default now(),
      unique (user_id, email)
    )`.execute(db)
  await sql`create index referral_invites_sent on referral_invites (user_id, last_sent_at desc)`.execute(db)

  // The first completed job of a referred account: written once, with the event that reports it.
  await sql`
    create table referral_completions (
      user_id char(24) primary key references users(id),
      referrer_id char(24) not null references users(id),
      collection_id char(24) not null,
      completed_at timestamptz not null
    )`.execute(db)
  await sql`create index referral_completions_referrer on referral_completions (referrer_id)`.execute(db)
}
