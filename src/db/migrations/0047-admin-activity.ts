// When an operator's session last used the admin API: a session idle for longer than
// ADMIN_IDLE_TIMEOUT_MS is revoked at its next admin request.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table admin_session_activity (
      session_id char(24) primary key references sessions (id),
      user_id char(24) not null references users (id),
      last_active_at timestamptz not null
    )`.execute(db)
}
