// Connection filters: a user's rules on who may invite them, apply to their jobs or open a
// conversation with them; one rule per event and key.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table connection_filters (
      id char(24) primary key,
      user_id char(24) not null references users (id),
      event text not null,
      key text not null,
      decider text not null,
      value jsonb not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (user_id, event, key)
    )`.execute(db)
}
