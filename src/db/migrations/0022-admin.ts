// The operator's side: a suspended state on accounts, the step-up of an admin's session (a fresh
// second factor, bound to one session, short-lived) and the audit log of every admin action.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // A suspended account cannot log in, and its sessions were revoked when it was suspended.
  await sql`alter table users add column suspended_at timestamptz`.execute(db)
  await sql`alter table users add column suspended_reason text`.execute(db)
  await sql`create index users_admins on users (id) where role = 'admin' and deleted_at is null`.execute(db)

  await sql`
    create table admin_elevations (
      session_id char(24) primary key references sessions (id),
      user_id char(24) not null references users (id),
      method text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null
    )`.execute(db)

  await sql`
    create table admin_audit (
      id char(24) primary key,
      actor_id char(24) not null references users (id),
      action text not null,
      target_type text not null,
      target_id text not null,
      reason text not null,
      request_id text,
      ip text,
      details jsonb not null default '{}',
      created_at timestamptz not null
    )`.execute(db)
  await sql`create index admin_audit_time on admin_audit (created_at desc, id desc)`.execute(db)
  await sql`create index admin_audit_actor on admin_audit (actor_id, created_at desc)`.execute(db)
  await sql`create index admin_audit_action on admin_audit (action, created_at desc)`.execute(db)
  await sql`create index admin_audit_target on admin_audit (target_id, created_at desc)`.execute(db)
}
