// The people search's filters are served by its indexes, not by reading the whole table: over
// 20,000 analysed accounts, the plan of the statement a search by words or tags runs (its page of
// ids and its total) has no sequential scan on users, and finds the words through their GIN index
// and the tags through theirs. PGlite and PostgreSQL are both PostgreSQL, so the same assertions
// hold on both drivers.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { searchQuery } from '../../src/modules/account/profile.ts'
import { type SearchFilters, searchRepo } from '../../src/modules/account/search-repo.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

const ROWS = 20_000
const PAGE = { page: 1, limit: 12 }

let t: TestApp
const callerId = 'ac' + '0'.repeat(22)

beforeAll(async () => {
  t = await createTestApp()
  // Account i: the word `topic<i mod 100>`, tags k<i mod 200> and k<(7i+3) mod 200>, one in
  // twenty private, one in five a partner.
  await sql`
    insert into users (id, email, first_name, last_name, email_verified, role, is_private, profile_completeness,
                       user_name, referral_code, search_text, tag_keys, created_at, updated_at)
    select 'ac' || lpad(to_hex(i), 22, '0'), 'plans' || i || '@example.com', 'First' || i, 'Last' || i, true,
           case when i % 5 = 0 then 'partner' else 'user' end, i % 20 = 0, i % 101,
           'plans' || i, 'PLANS' || i,
           'first' || i || ' last' || i || ' topic' || (i % 100),
           array['k' || (i % 200), 'k' || ((i * 7 + 3) % 200)],
           now() - i * interval '1 second', now() - i * interval '1 second'
    from generate_series(1, ${ROWS}) i`.execute(t.database.db)
  await sql`analyze users`.execute(t.database.db)
  await sql`analyze bookmarks`.execute(t.database.db)
}, 180_000)
afterAll(() => t.close())

async function plan(filters: Omit<SearchFilters, 'callerId'>): Promise<string> {
  const rows = await searchRepo.rankedQuery(t.database.db, { callerId, ...filters }, PAGE).explain()
  return rows.map((r) => Object.values(r).join(' ')).join('\n')
}

async function total(filters: Omit<SearchFilters, 'callerId'>): Promise<number> {
  const rows = await searchRepo.rankedQuery(t.database.db, { callerId, ...filters }, PAGE).execute()
  return rows.length === 0 ? 0 : Number(rows[0]!.matches)
}

const words = { tsquery: searchQuery('topic42')! }
const tags = { tagKeys: ['k42', 'k142'] }

describe('people search query plans over 20,000 accounts', () => {
  it('the seeded data is there and the filters find what they should', async () => {
    // topic42: i ≡ 42 (mod 100), 200 accounts, less the private ones (i ≡ 0 mod 20: none of them).
    expect(await total(words)).toBe(200)
    // Every account with topic42 has tag k42 or k142 (i mod 200 is 42 or 142).
    expect(await total({ ...words, ...tags })).toBe(200)
    expect(await total({ ...words, ...tags, role: 'user' })).toBe(200)
    expect(await total({ tagKeys: ['k7'] })).toBeGreaterThan(0)
  })

  it.each([
    ['words', words, /users_search_fts\b/],
    ['tags', tags, /users_tag_keys\b/],
    ['words and tags', { ...words, ...tags }, /users_search_fts\b|users_tag_keys\b/],
    [
      'words, tags, role and completeness',
      { ...words, ...tags, role: 'user', completenessMin: 20 },
      /users_search_fts\b|users_tag_keys\b/,
    ],
  ] as const)('%s: no sequential scan; found through its index', async (_label, filters, index) => {
    const p = await plan(filters)
    expect(p).not.toMatch(/Seq Scan on users/)
    expect(p).toMatch(index)
  })
})
