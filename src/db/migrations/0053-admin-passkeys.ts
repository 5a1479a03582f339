// Operators' passkeys (WebAuthn): each credential an operator registered to unlock the admin pages,
// and the single-use challenges of a registration or an unlock, bound to the session that asked.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table admin_passkeys (
      id text primary key,
      user_id char(24) not null references users (id),
      name text not null,
      public_key text not null,
      counter bigint not null default 0,
      transports jsonb not null default '[]',
      device_type text not null,
      backed_up boolean not null,
      created_at timestamptz not null,
      last_used_at timestamptz
    )`.execute(db)
  await sql`create index admin_passkeys_user on admin_passkeys (user_id, created_at)`.execute(db)
  await sql`
    create table admin_passkey_challenges (
      challenge text primary key,
      purpose text not null check (purpose in ('register', 'authenticate')),
      user_id char(24) not null references users (id),
      session_id char(24) not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db)
  await sql`create index admin_passkey_challenges_user on admin_passkey_challenges (user_id)`.execute(db)
}
