// Collection attachments: ids of the creator's uploaded files.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table collections add column attachment_ids text[] not null default '{}'`.execute(db)
}
