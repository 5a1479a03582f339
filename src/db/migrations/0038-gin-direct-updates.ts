// The GIN indexes still on PostgreSQL's default pending list are written directly, like the
// others (the collections' words and tags, the accounts' tags): the people search's words, the
// events' audience and the private collections' invitees. With a pending list, new and changed
// rows wait unsorted until a vacuum or 4 MB of them merges it; every lookup through the index
// reads all of them meanwhile, and the planner, pricing that in, turns to reading the whole table
// once enough rows wait (a search by words over a few thousand new accounts did).
import { type Kysely, sql } from 'kysely'

const INDEXES = ['users_search_fts', 'events_audience', 'collections_private_invitees']

export async function up(db: Kysely<any>): Promise<void> {
  for (const index of INDEXES) {
    await sql`alter index ${sql.ref(index)} set (fastupdate = off)`.execute(db)
    // What already waits is merged now, not at the next vacuum.
    await sql`select gin_clean_pending_list(${index}::regclass)`.execute(db)
  }
}
