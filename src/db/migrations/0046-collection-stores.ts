// Collection schemas (typed fields an admin defines) and the store records users keep under them.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table collection_schemas (
      id char(24) primary key,
      name text not null unique,
      reference text not null unique,
      description text not null default '',
      fields jsonb not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db)
  await sql`
    create table collection_store_records (
      id char(24) primary key,
      schema_id char(24) not null references collection_schemas (id),
      owner_id char(24) not null references users (id),
      data jsonb not null,
      is_private boolean not null default false,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db)
  await sql`
    create index collection_store_records_schema on collection_store_records (schema_id, created_at desc, id desc)`.execute(
    db,
  )
}
