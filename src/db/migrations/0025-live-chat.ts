// Live pushes between API processes (payloads too large for NOTIFY, and who is connected where)
// and chat (conversations, their members with read state, messages).
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // A live message whose payload is over NOTIFY's limit: the notification carries its id and
  // every listening process loads it; rows are pruned minutes later.
  await sql`
    create table live_messages (
      id char(24) primary key,
      payload jsonb not null,
      created_at timestamptz not null default now()
    )`.execute(db)
  await sql`create index live_messages_age on live_messages (created_at)`.execute(db)

  // Every API process that serves sockets, with its last heartbeat; a process gone silent is
  // removed with its presence rows by any other process.
  await sql`
    create table live_processes (
      id text primary key,
      heartbeat_at timestamptz not null
    )`.execute(db)
  await sql`
    create table live_presence (
      process_id text not null references live_processes (id) on delete cascade,
      user_id char(24) not null references users (id) on delete cascade,
      sockets integer not null check (sockets > 0),
      primary key (process_id, user_id)
    )`.execute(db)
  await sql`create index live_presence_user on live_presence (user_id)`.execute(db)

  await sql`
    create table chat_conversations (
      id char(24) primary key,
      type text not null check (type in ('collection', 'direct')),
      collection_id char(24) references collections (id),
      pair_key text,
      created_at timestamptz not null,
      last_message_at timestamptz,
      check ((type = 'collection') = (collection_id is not null)),
      check ((type = 'direct') = (pair_key is not null))
    )`.execute(db)
  await sql`create unique index chat_conversations_collection on chat_conversations (collection_id) where type = 'collection'`.execute(
    db,
  )
  await sql`create unique index chat_conversations_pair on chat_conversations (pair_key) where type = 'direct'`.execute(
    db,
  )
  await sql`
    create table chat_members (
      conversation_id char(24) not null references chat_conversations (id) on delete cascade,
      user_id char(24) not null references users (id) on delete cascade,
      joined_at timestamptz not null,
      last_read_at timestamptz,
      primary key (conversation_id, user_id)
    )`.execute(db)
  await sql`create index chat_members_user on chat_members (user_id)`.execute(db)
  await sql`
    create table chat_messages (
      id char(24) primary key,
      conversation_id char(24) not null references chat_conversations (id) on delete cascade,
      sender_id char(24) not null references users (id),
      type text not null default 'text',
      content text not null default '',
      media_id char(24) references files (id),
      quoted_message_id char(24) references chat_messages (id),
      created_at timestamptz not null
    )`.execute(db)
  await sql`create index chat_messages_page on chat_messages (conversation_id, created_at desc, id desc)`.execute(
    db,
  )
}
