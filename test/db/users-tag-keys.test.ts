// Migration 0035: accounts that had tags before it keep being found by the people search's tag
// filter, because the migration fills each account's tag_keys from user_tags (in tag order).
import { sql } from 'kysely'
import { afterAll, expect, it } from 'vitest'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { type EmptyDatabase, emptyDatabase, migrationsBefore } from './support.ts'

let e: EmptyDatabase | undefined
afterAll(() => e?.close())

it('fills tag_keys of existing accounts from their tags, in order, and leaves untagged ones empty', async () => {
  e = await emptyDatabase()
  const db = e.database.db
  await migrateToLatest(db, { folder: migrationsBefore('0035') })
  await sql`
    insert into users (id, email, first_name, last_name, status, email_verified, referral_code, user_name)
    values ('u00000000000000000000001', 'one@example.test', 'One', 'Tagged', true, true, 'REFONE01', 'one'),
           ('u00000000000000000000002', 'two@example.test', 'Two', 'Plain', true, true, 'REFTWO02', 'two')`.execute(
    db,
  )
  await sql`
    insert into tags (id, name, key, color, type)
    values ('t00000000000000000000001', 'Rust', 'rust', '#000000', 'tags'),
           ('t00000000000000000000002', 'Go', 'go', '#000000', 'tags')`.execute(db)
  await sql`
    insert into user_tags (user_id, tag_id, position)
    values ('u00000000000000000000001', 't00000000000000000000002', 1),
           ('u00000000000000000000001', 't00000000000000000000001', 0)`.execute(db)

  await migrateToLatest(db)

  const { rows } = await sql<{ id: string; tagKeys: string[] }>`
    select id, tag_keys from users order by id`.execute(db)
  expect(rows).toEqual([
    { id: 'u00000000000000000000001', tagKeys: ['rust', 'go'] },
    { id: 'u00000000000000000000002', tagKeys: [] },
  ])
})
