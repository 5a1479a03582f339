// Uploaded files: one row per stored object, soft-deleted (status false, deleted_at) on removal.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table files (
      id char(24) primary key,
      name text not null,
      uploaded_by char(24) not null references users(id),
      visibility text not null check (visibility in ('public', 'private')),
      type text not null,
      size bigint not null check (size >= 0),
      bucket text not null,
      meta jsonb not null default '{}'::jsonb,
      status boolean not null default true,
      deleted_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0
    )`.execute(db)
  await sql`create unique index files_name on files (name)`.execute(db)
  await sql`create index files_owner_live on files (uploaded_by, created_at desc, id desc) where status`.execute(
    db,
  )
}
