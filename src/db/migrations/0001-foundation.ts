// Accounts, sessions, one-time flows, the mail outbox, durable jobs, idempotency keys and the
// audit log.
import { type Kysely, sql } from 'kysely'
import { TAXONOMY } from '../../modules/account/taxonomy.ts'
import { newId } from '../../platform/crypto/ids.ts'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table users (
      id char(24) primary key,
      email text,
      first_name text not null default '',
      last_name text not null default '',
      password_hash text,
      status boolean not null default false,
      email_verified boolean not null default false,
      email_verified_at timestamptz,
      role text not null default 'user',
      type text not null default 'recipient',
      profile jsonb not null default '{}'::jsonb,
      verified boolean not null default false,
      is_private boolean not null default false,
      wallet_generated boolean not null default false,
      score integer not null default 0,
      two_fa_type text not null default '',
      two_fa_enabled boolean not null default false,
      two_fa_secret text,
      two_fa_last_step bigint,
      security_question text not null default '',
      profile_completeness integer not null default 0,
      socket_status text not null default 'OFFLINE',
      logged_in_at timestamptz,
      user_name text not null,
      is_user_name_updated boolean not null default false,
      referral_code text not null,
      referred_by char(24) references users(id),
      web3_onboard boolean not null default false,
      web3_address text,
      account_type text not null default 'email',
      bg_image_id char(24),
      profile_image_id char(24),
      meta jsonb not null default '{"pointScore":0}'::jsonb,
      socials jsonb not null default '{}'::jsonb,
      kyc boolean not null default false,
      kyc_status text,
      search_text text not null default '',
      deleted_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0
    )`.execute(db)
  // Emails are unique among live accounts, case-insensitively; a deleted account frees its email.
  await sql`create unique index users_email_live on users (lower(email)) where deleted_at is null`.execute(db)
  await sql`create unique index users_user_name on users (lower(user_name))`.execute(db)
  await sql`create unique index users_referral_code on users (referral_code)`.execute(db)
  await sql`create unique index users_web3_address on users (web3_address) where deleted_at is null`.execute(
    db,
  )
  await sql`create index users_referred_by on users (referred_by)`.execute(db)

  await sql`
    create table sessions (
      id char(24) primary key,
      user_id char(24) not null references users(id),
      ip text,
      user_agent text,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )`.execute(db)
  await sql`create index sessions_user on sessions (user_id) where revoked_at is null`.execute(db)

  // One row per temporary token: the flow it belongs to, its code (hashed) and its attempt count.
  await sql`
    create table auth_flows (
      id char(24) primary key,
      purpose text not null,
      user_id char(24) references users(id),
      email text,
      address text,
      nonce text,
      message text,
      code_hash text,
      attempts integer not null default 0,
      validated_at timestamptz,
      consumed_at timestamptz,
      dead_at timestamptz,
      expires_at timestamptz not null,
      created_at timestamptz not null default now()
    )`.execute(db)
  await sql`create index auth_flows_user on auth_flows (user_id, purpose)`.execute(db)
  await sql`create unique index auth_flows_nonce on auth_flows (nonce) where nonce is not null`.execute(db)

  await sql`
    create table mails (
      id char(24) primary key,
      to_address text not null,
      subject text not null,
      text text not null,
      html text not null,
      kind text not null,
      created_at timestamptz not null default now()
    )`.execute(db)
  await sql`create index mails_to on mails (to_address, created_at)`.execute(db)

  await sql`
    create table jobs (
      id char(24) primary key,
      kind text not null,
      payload jsonb not null default '{}'::jsonb,
      status text not null default 'queued',
      run_at timestamptz not null default now(),
      attempts integer not null default 0,
      max_attempts integer not null default 5,
      locked_until timestamptz,
      last_error text,
      dedupe_key text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db)
  await sql`create index jobs_ready on jobs (run_at) where status = 'queued'`.execute(db)
  await sql`create unique index jobs_dedupe on jobs (dedupe_key) where dedupe_key is not null`.execute(db)

  await sql`
    create table idempotency_keys (
      user_id char(24) not null,
      key text not null,
      route text not null,
      request_hash text not null,
      status_code integer,
      response jsonb,
      created_at timestamptz not null default now(),
      primary key (user_id, key)
    )`.execute(db)

  await sql`
    create table audit_log (
      id char(24) primary key,
      user_id char(24),
      action text not null,
      ip text,
      meta jsonb not null default '{}'::jsonb,
      created_at timestamptz not null default now()
    )`.execute(db)
  await sql`create index audit_log_user on audit_log (user_id, created_at)`.execute(db)
  // Skill tags (profiles and collections share them) and bookmarks of users and collections.
  await sql`
    create table tags (
      id char(24) primary key,
      name text not null,
      key text not null unique,
      color text not null,
      description text not null default '',
      icon text not null default '',
      categories text[] not null default '{}',
      is_parent boolean not null default false,
      type text not null default 'tags',
      entry_count integer not null default 0 check (entry_count >= 0),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0
    )`.execute(db)

  await sql`
    create table bookmarks (
      id char(24) primary key,
      user_id char(24) not null references users(id),
      type text not null check (type in ('collection', 'user')),
      reference char(24) not null,
      created_at timestamptz not null default now(),
      unique (user_id, type, reference)
    )`.execute(db)
  await sql`create index bookmarks_reference on bookmarks (type, reference)`.execute(db)
  for (const parent of TAXONOMY) {
    await sql`
      insert into tags (id, name, key, color, description, icon, is_parent, type)
      values (${newId()}, ${parent.name}, ${parent.key}, ${parent.color}, ${parent.description}, ${parent.icon}, true, '')
      on conflict (key) do nothing`.execute(db)
  }
}
