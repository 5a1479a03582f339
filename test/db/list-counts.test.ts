// The totals of the unfiltered browse lists (migration 0036) and each creator's number of live
// private collections (migration 0061) always equal a count of the rows: after bulk inserts,
// updates that change what is listed and updates that do not, deletes, a rolled-back transaction,
// concurrent writers, and for rows that existed before the migration.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/index.ts'
import { listCount } from '../../src/db/list-counts.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { type EmptyDatabase, emptyDatabase, migrationsBefore } from './support.ts'

const open: EmptyDatabase[] = []
afterAll(async () => {
  for (const e of open) await e.close()
})
async function fresh() {
  const e = await emptyDatabase()
  open.push(e)
  return e
}

/** Users u<from>..u<to>: every third unverified, every fifth private, every seventh deleted. */
async function insertUsers(db: Database['db'], from: number, to: number) {
  await sql`
    insert into users (id, email, first_name, last_name, status, email_verified, is_private, deleted_at,
                       referral_code, user_name)
    select 'u' || lpad(i::text, 23, '0'), 'u' || i || '@example.test', 'U', 'Ser', true, i % 3 <> 0, i % 5 = 0,
           case when i % 7 = 0 then now() end, 'REF' || i, 'user' || i
    from generate_series(${from}::int, ${to}::int) i`.execute(db)
}

/** Collections c<from>..c<to> of users u1 to u3 in turn: every fourth private, every sixth deleted. */
async function insertCollections(db: Database['db'], from: number, to: number) {
  await sql`
    insert into collections (id, creator_id, type, name, description, slug, is_private, is_deleted, created_at, updated_at)
    select 'c' || lpad(i::text, 23, '0'), 'u' || lpad((i % 3 + 1)::text, 23, '0'), 'job', 'C' || i, '', 'c-' || i,
           i % 4 = 0, i % 6 = 0, now(), now()
    from generate_series(${from}::int, ${to}::int) i`.execute(db)
}

async function expectCounts(db: Database['db']) {
  const { rows } = await sql<{ people: string; collections: string }>`
    select (select count(*) from users where deleted_at is null and email_verified and not is_private) as people,
           (select count(*) from collections where not is_deleted and not is_private) as collections`.execute(
    db,
  )
  expect(await listCount(db, 'people')).toBe(Number(rows[0]!.people))
  expect(await listCount(db, 'collections')).toBe(Number(rows[0]!.collections))
  const kept = await sql<{ creatorId: string; n: string }>`
    select creator_id, n from collection_private_counts where n <> 0 order by creator_id`.execute(db)
  const counted = await sql<{ creatorId: string; n: string }>`
    select creator_id, count(*) as n from collections where is_private and not is_deleted
    group by creator_id order by creator_id`.execute(db)
  expect(kept.rows.map((r) => [r.creatorId, Number(r.n)])).toEqual(
    counted.rows.map((r) => [r.creatorId, Number(r.n)]),
  )
}

/** The kept number of user u<i>'s live private collections. */
async function privateOf(db: Database['db'], i: number) {
  const { rows } = await sql<{ n: string }>`
    select n from collection_private_counts where creator_id = ${`u${String(i).padStart(23, '0')}`}`.execute(
    db,
  )
  return Number(rows[0]?.n ?? 0)
}

describe('list counts', () => {
  let db: Database['db']
  beforeAll(async () => {
    db = (await fresh()).database.db
    await migrateToLatest(db)
  })

  it('start at zero and follow bulk inserts', async () => {
    expect(await listCount(db, 'people')).toBe(0)
    expect(await listCount(db, 'collections')).toBe(0)
    await insertUsers(db, 1, 500)
    await insertCollections(db, 1, 300)
    await expectCounts(db)
    expect(await listCount(db, 'people')).toBeGreaterThan(0)
  })

  it('follow updates into and out of the list, and ignore updates that change nothing listed', async () => {
    await sql`update users set email_verified = true where id in (select id from users where not email_verified limit 40)`.execute(
      db,
    )
    await expectCounts(db)
    await sql`update users set is_private = not is_private where id like 'u%1'`.execute(db)
    await expectCounts(db)
    await sql`update users set deleted_at = now() where id like 'u%2'`.execute(db)
    await expectCounts(db)
    const before = await listCount(db, 'people')
    await sql`update users set first_name = 'Renamed'`.execute(db)
    expect(await listCount(db, 'people')).toBe(before)
    await sql`update collections set is_private = not is_private where id like 'c%3'`.execute(db)
    await sql`update collections set is_deleted = true where id like 'c%5'`.execute(db)
    await expectCounts(db)
    // a collection handed to another creator, a deleted one restored
    await sql`update collections set creator_id = ${`u${'4'.padStart(23, '0')}`} where id like 'c%8'`.execute(
      db,
    )
    await sql`update collections set is_deleted = false where id like 'c%5'`.execute(db)
    await expectCounts(db)
    expect(await privateOf(db, 1)).toBeGreaterThan(0)
  })

  it('follow deletes, and a rolled-back change leaves them as they were', async () => {
    await sql`delete from collections where id like 'c%7'`.execute(db)
    await sql`delete from users where id like 'u%9' and id not in (select creator_id from collections)`.execute(
      db,
    )
    await expectCounts(db)
    const before = [await listCount(db, 'people'), await listCount(db, 'collections')]
    await expect(
      db.transaction().execute(async (tx) => {
        await insertUsers(tx, 1000, 1100)
        await sql`update collections set is_private = false`.execute(tx)
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    expect([await listCount(db, 'people'), await listCount(db, 'collections')]).toEqual(before)
    await expectCounts(db)
  })

  it('stay exact under concurrent writers', async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, w) =>
        db.transaction().execute(async (tx) => {
          await insertUsers(tx, 2000 + w * 100, 2099 + w * 100)
          await sql`update users set is_private = not is_private where id in (${sql.join(
            Array.from({ length: 10 }, (_, i) => `u${String(2000 + w * 100 + i).padStart(23, '0')}`),
          )})`.execute(tx)
          // every writer changes the same three creators' private collections
          await insertCollections(tx, 5000 + w * 100, 5099 + w * 100)
          await sql`update collections set is_private = not is_private
            where id >= ${`c${String(5000 + w * 100).padStart(23, '0')}`}
              and id < ${`c${String(5020 + w * 100).padStart(23, '0')}`}`.execute(tx)
        }),
      ),
    )
    await expectCounts(db)
  })
})

it.each(['0036', '0061'])('counts the rows already there when migration %s runs', async (migration) => {
  const e = await fresh()
  const db = e.database.db
  await migrateToLatest(db, { folder: migrationsBefore(migration) })
  await insertUsers(db, 1, 200)
  await insertCollections(db, 1, 100)
  await migrateToLatest(db)
  await expectCounts(db)
  expect(await listCount(db, 'people')).toBeGreaterThan(0)
  expect(await listCount(db, 'collections')).toBeGreaterThan(0)
  expect(await privateOf(db, 2)).toBeGreaterThan(0)
})
