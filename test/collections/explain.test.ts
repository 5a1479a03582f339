// The list filters are served by indexes, not by reading the whole table: over 20,000 analysed
// rows, the plans of the exact queries the list runs (the page and its count, or both in one query
// for a search by words or tags) have no sequential scan on collections, and each selective
// filter's count uses its own index. PGlite and PostgreSQL are both PostgreSQL, so the same
// assertions hold on both drivers.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { searchQuery } from '../../src/modules/collections/filters.ts'
import { collectionListRepo, type ListFilters } from '../../src/modules/collections/list-repo.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createMember, type Member } from './helpers.ts'

const ROWS = 20_000
const CREATORS = 200

let t: TestApp
let viewer: Member
const creatorId = (i: number) => `ab${i.toString(16).padStart(22, '0')}`

beforeAll(async () => {
  t = await createTestApp()
  viewer = await createMember(t)
  const db = t.database.db
  await sql`
    insert into users (id, user_name, referral_code)
    select 'ab' || lpad(to_hex(i), 22, '0'), 'explain' || i, 'EXPLAIN' || i from generate_series(1, ${CREATORS}) i`.execute(
    db,
  )
  // Values spread so each filter below is selective: 50 types, 40 statuses, 200 creators, fees
  // 0–9999, 500 tag keys (two per row), 1,000 distinct search words.
  await sql`
    insert into collections (id, creator_id, type, name, description, slug, payment_fee, is_private, status,
                             tag_keys, tag_ids, tags_data, search_text, meta, created_at, updated_at)
    select lpad(to_hex(i), 24, '0'),
           'ab' || lpad(to_hex(1 + i % ${CREATORS}), 22, '0'),
           'type' || (i % 50),
           'Collection ' || i,
           'Description of collection number ' || i,
           'collection-' || i,
           (i % 10000)::numeric,
           i % 10 = 0,
           'status' || (i % 40),
           array['k' || (i % 500), 'k' || ((i * 7 + 3) % 500)],
           '{}',
           array['k' || (i % 500), 'k' || ((i * 7 + 3) % 500)],
           'word' || (i % 1000) || ' collection number ' || i || ' k' || (i % 500),
           jsonb_build_object('name', 'meta' || (i % 1000)),
           now() - i * interval '1 second',
           now() - i * interval '1 second'
    from generate_series(1, ${ROWS}) i`.execute(db)
  await sql`analyze collections`.execute(db)
  await sql`analyze users`.execute(db)
  await sql`analyze bookmarks`.execute(db)
}, 180_000)
afterAll(() => t.close())

async function plan(q: { explain(): Promise<Record<string, unknown>[]> }): Promise<string> {
  const rows = await q.explain()
  return rows.map((r) => Object.values(r).join(' ')).join('\n')
}

// The index the count must use (PostgreSQL 18 may also skip-scan the visibility index by creator).
const cases: Array<[string, ListFilters, RegExp]> = [
  ['search', { tsQuery: searchQuery('word123')! }, /collections_search\b/],
  ['tags', { tagKeys: ['k42', 'k17'] }, /collections_tag_keys\b/],
  ['price', { priceMin: '100', priceMax: '140' }, /collections_price\b/],
  ['type', { type: 'type7' }, /collections_type\b/],
  ['status', { status: 'status3' }, /collections_status\b/],
  ['creator', { creatorId: creatorId(17) }, /collections_creator|collections_visible/],
  ['meta.name', { metaName: 'meta99' }, /collections_meta_name\b/],
  ['parent', { parentId: '0'.repeat(23) + '1' }, /collections_parent\b/],
]

describe('list query plans over 20,000 rows', () => {
  it('the seeded data is there and the filters return what they should', async () => {
    const db = t.database.db
    expect(await collectionListRepo.count(db, viewer.id, {})).toBe(ROWS - ROWS / 10)
    expect(await collectionListRepo.count(db, viewer.id, { type: 'type7' })).toBe(400)
    expect(await collectionListRepo.count(db, viewer.id, { tagKeys: ['k42'] })).toBeGreaterThan(0)
  })

  it.each(cases)('%s: no sequential scan; the count uses its index', async (_label, filters, index) => {
    const db = t.database.db
    const count = await plan(collectionListRepo.countQuery(db, viewer.id, filters))
    expect(count).not.toMatch(/Seq Scan on collections/)
    expect(count).toMatch(index)
    const page = await plan(
      collectionListRepo.listPageQuery(db, viewer.id, filters, { limit: 12, offset: 0 }),
    )
    expect(page).not.toMatch(/Seq Scan on collections/)
  })

  // A search by words or tags reads its page and its count in one query: through the same index.
  it.each(cases.slice(0, 2))(
    '%s: the page counted in one query finds its matches by index',
    async (_l, filters, index) => {
      const counted = await plan(
        collectionListRepo.countedPageQuery(t.database.db, viewer.id, filters, { limit: 12, offset: 0 }),
      )
      expect(counted).not.toMatch(/Seq Scan on collections/)
      expect(counted).toMatch(index)
    },
  )

  it('search, two tags and a price range together: no sequential scan', async () => {
    const db = t.database.db
    const filters: ListFilters = {
      tsQuery: searchQuery('word12')!,
      tagKeys: ['k12', 'k300'],
      priceMin: '0',
      priceMax: '5000',
    }
    expect(await plan(collectionListRepo.countQuery(db, viewer.id, filters))).not.toMatch(
      /Seq Scan on collections/,
    )
    expect(
      await plan(collectionListRepo.listPageQuery(db, viewer.id, filters, { limit: 12, offset: 0 })),
    ).not.toMatch(/Seq Scan on collections/)
    const counted = await plan(
      collectionListRepo.countedPageQuery(db, viewer.id, filters, { limit: 12, offset: 0 }),
    )
    expect(counted).not.toMatch(/Seq Scan on collections/)
    expect(counted).toMatch(/collections_search\b|collections_tag_keys\b/)
  })
})
