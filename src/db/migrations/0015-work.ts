// Collaboration on a job: invites, applications, reviews and disputes, and the columns of a
// collection that follow them (its invites, pending invitees, applications, ratings, delivery,
// cancellation, issue and the split paid when a dispute ends).
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table collections
      add column invite_ids text[] not null default '{}',
      add column invitee_ids text[] not null default '{}',
      add column application_ids text[] not null default '{}',
      add column rating_ids text[] not null default '{}',
      add column cancellation_reason text not null default '',
      add column issue text not null default '',
      add column delivery_note text not null default '',
      add column delivery_attachment_ids text[] not null default '{}',
      add column delivered_at timestamptz,
      add column completed_at timestamptz,
      add column cancelled_at timestamptz,
      add column escrow_released jsonb,
      add constraint collections_progress check (progress between 0 and 100)`.execute(db)
  // The visibility test of every read also lets a pending invitee see a private collection; the
  // index keeps covering it (the count of an unfiltered list stays an index-only scan).
  await sql`drop index collections_visible`.execute(db)
  await sql`
    create index collections_visible on collections (is_private, creator_id, receiver_id)
      include (invitee_ids) where is_deleted = false`.execute(db)

  // An invitation of one talent to one collection. At most one pending per collection and talent.
  await sql`
    create table invites (
      id char(24) primary key,
      collection_id char(24) not null references collections(id),
      sender_id char(24) not null references users(id),
      receiver_id char(24) not null references users(id),
      message text not null default '',
      status text not null default 'pending'
        check (status in ('pending', 'accepted', 'rejected', 'cancelled', 'expired')),
      accepted_at timestamptz,
      closed_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0
    )`.execute(db)
  await sql`create unique index invites_one_pending on invites (collection_id, receiver_id) where status = 'pending'`.execute(
    db,
  )
  await sql`create index invites_collection on invites (collection_id, created_at)`.execute(db)
  await sql`create index invites_receiver on invites (receiver_id, created_at desc)`.execute(db)
  await sql`create index invites_sender on invites (sender_id, created_at desc)`.execute(db)

  // A talent's application to a public job, with an optional price in USD cents.
  await sql`
    create table applications (
      id char(24) primary key,
      collection_id char(24) not null references collections(id),
      applicant_id char(24) not null references users(id),
      message text not null,
      amount_cents numeric(14, 0) check (amount_cents > 0),
      status text not null default 'pending'
        check (status in ('pending', 'accepted', 'rejected', 'expired')),
      decided_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0
    )`.execute(db)
  await sql`create unique index applications_one_pending on applications (collection_id, applicant_id) where status = 'pending'`.execute(
    db,
  )
  await sql`create index applications_collection on applications (collection_id, created_at)`.execute(db)
  await sql`create index applications_applicant on applications (applicant_id, created_at desc)`.execute(db)

  // One review per author and job; `is_private` is the job's privacy when it was written.
  await sql`
    create table reviews (
      id char(24) primary key,
      collection_id char(24) not null references collections(id),
      owner_id char(24) not null references users(id),
      receiver_id char(24) not null references users(id),
      type text not null check (type in ('talent', 'creator')),
      rating smallint not null check (rating between 1 and 5),
      review text not null,
      is_private boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0,
      unique (collection_id, owner_id)
    )`.execute(db)
  await sql`create index reviews_receiver on reviews (receiver_id, created_at desc)`.execute(db)
  await sql`create index reviews_owner on reviews (owner_id, created_at desc)`.execute(db)
  await sql`create index reviews_created on reviews (created_at desc, id desc)`.execute(db)

  // A dispute over a funded job: the split last proposed by a party, and the split that ended it
  // (agreed by both, or decided by an arbiter), in USD cents of the escrowed price.
  await sql`
    create table disputes (
      id char(24) primary key,
      collection_id char(24) not null references collections(id),
      escrow_id char(24) not null references escrows(id),
      raised_by char(24) not null references users(id),
      reason text not null,
      evidence_ids text[] not null default '{}',
      status text not null default 'open' check (status in ('open', 'settling', 'settled')),
      proposed_by char(24) references users(id),
      proposed_creator_cents numeric(20, 0),
      proposed_owner_cents numeric(20, 0),
      proposed_at timestamptz,
      resolution text check (resolution in ('agreement', 'arbiter')),
      creator_cents numeric(20, 0) check (creator_cents >= 0),
      owner_cents numeric(20, 0) check (owner_cents >= 0),
      decided_by char(24) references users(id),
      note text not null default '',
      resolved_at timestamptz,
      paid_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0
    )`.execute(db)
  await sql`create unique index disputes_one_per_job on disputes (collection_id)`.execute(db)
}
