// Identity verification: one row per session a user starts (with the operator review or Veriff),
// the images sent for it (the files themselves are private files of the files module), and at most
// one session in progress per account.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table identity_verifications (
      id char(24) primary key,
      user_id char(24) not null references users (id),
      provider text not null check (provider in ('operator', 'veriff')),
      status text not null check (status in ('created', 'submitted', 'review', 'approved', 'declined',
        'resubmission_requested', 'expired', 'abandoned')),
      provider_session_id text not null,
      session_token text not null,
      session_url text not null,
      first_name text not null,
      last_name text not null,
      gender text not null,
      country text not null,
      full_address text not null,
      document_type text not null,
      document_number text not null,
      date_of_birth text not null,
      reason text not null default '',
      reason_code integer,
      decided_by text,
      decided_at timestamptz,
      decision jsonb,
      document_valid_from text,
      document_valid_until text,
      deleted_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (provider, provider_session_id)
    )`.execute(db)
  await sql`create index identity_verifications_user on identity_verifications (user_id, created_at desc)`.execute(
    db,
  )
  await sql`create index identity_verifications_status on identity_verifications (status, created_at)`.execute(
    db,
  )
  // One session in progress per account: a second start is refused (409) by the service, and by
  // this index when two starts race.
  await sql`
    create unique index identity_verifications_open on identity_verifications (user_id)
    where status in ('created', 'submitted', 'review') and deleted_at is null`.execute(db)
  await sql`
    create table identity_verification_media (
      id char(24) primary key,
      verification_id char(24) not null references identity_verifications (id),
      context text not null check (context in ('face', 'document-front', 'document-back')),
      file_id char(24) not null,
      name text not null,
      mime_type text not null,
      size integer not null,
      created_at timestamptz not null
    )`.execute(db)
  await sql`create index identity_verification_media_session on identity_verification_media (verification_id, created_at)`.execute(
    db,
  )
}
