// The collection list over a large table: 100,000 collections (1,000,000 on PostgreSQL without
// --quick, 10,000 with it) and 1,000 tags seeded with bulk SQL,
// then GET /v1/collection with a search term, two tags and a price range (the indexed path), plus
// the unfiltered first page and one collection by id for comparison, and jobs posted with tags. Latency targets (one
// connection, so queueing does not dominate): p50 < 10 ms, p99 < 50 ms for the filtered list.
import { sql } from 'kysely'
import type { BenchContext, Scenario } from '../lib.ts'

const TAGS = 1_000
const CHUNK = 20_000

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const db = ctx.app.services.database.db
  const user = await ctx.createUser()
  const other = await ctx.createUser()
  const COLLECTIONS = ctx.large ? 1_000_000 : ctx.quick ? 10_000 : 100_000
  const started = Date.now()

  await sql`
    insert into tags (id, name, key, color, type)
    select 'bb' || lpad(to_hex(i), 22, '0'), 'Skill ' || i, 'skill' || i, '#3366cc', 'tags'
    from generate_series(0, ${TAGS - 1}::int) i
    on conflict (key) do nothing`.execute(db)
  // Bulk load with the GIN pending lists on (their entries are merged once by VACUUM), then back
  // to the migration's setting of direct GIN updates.
  for (const index of ['collections_search', 'collections_tag_keys'])
    await sql`alter index ${sql.ref(index)} set (fastupdate = on)`.execute(db)
  // Row i: search word `word<i mod 1000>`, tags skill<i mod 1000> and skill<(7i+3) mod 1000>, a fee
  // of 0–9,999.99 USD, one in ten private, two creators, one second apart.
  for (let from = 1; from <= COLLECTIONS; from += CHUNK) {
    const to = Math.min(from + CHUNK - 1, COLLECTIONS)
    await sql`
      insert into collections (id, creator_id, type, name, description, slug, payment_fee, is_private,
                               tags_data, tag_ids, tag_keys, search_text, meta, created_at, updated_at)
      select 'cc' || lpad(to_hex(i), 22, '0'),
             case when i % 2 = 0 then ${user.id} else ${other.id} end,
             case when i % 5 = 0 then 'funding' else 'job' end,
             'Job word' || (i % 1000) || ' number ' || i,
             'Build and ship feature ' || i || ' for the platform',
             'job-' || i,
             ((i * 37) % 1000000) / 100.0,
             i % 10 = 0,
             array['Skill ' || (i % 1000), 'Skill ' || ((i * 7 + 3) % 1000)],
             array['bb' || lpad(to_hex(i % 1000), 22, '0'), 'bb' || lpad(to_hex((i * 7 + 3) % 1000), 22, '0')],
             array['skill' || (i % 1000), 'skill' || ((i * 7 + 3) % 1000)],
             'job word' || (i % 1000) || ' number ' || i || ' build and ship feature ' || i
               || ' for the platform skill ' || (i % 1000) || ' skill ' || ((i * 7 + 3) % 1000),
             jsonb_build_object('name', 'm' || (i % 100)),
             now() - i * interval '1 second',
             now() - i * interval '1 second'
      from generate_series(${from}::int, ${to}::int) i`.execute(db)
  }
  await sql`vacuum analyze collections`.execute(db)
  await sql`analyze tags`.execute(db)
  for (const index of ['collections_search', 'collections_tag_keys'])
    await sql`alter index ${sql.ref(index)} set (fastupdate = off)`.execute(db)
  const seededMs = Date.now() - started

  const headers = { authorization: `Bearer ${user.token}` }
  const filtered = '/v1/collection?search=word42&tags=skill42,skill420&price=100-5000'
  const check = await ctx.app.inject({ method: 'GET', url: filtered, headers })
  const matched = check.statusCode === 200 ? (check.json().data.total as number) : -1
  const one = 'cc' + (2).toString(16).padStart(22, '0')

  return [
    {
      name: `seed ${COLLECTIONS.toLocaleString('en')} collections + 1k tags`,
      run: async () => ({ seededMs, filteredMatches: matched }),
    },
    {
      name: 'GET /v1/collection search+2 tags+price (1 connection)',
      path: filtered,
      headers,
      connections: 1,
    },
    {
      name: 'GET /v1/collection search+2 tags+price (10 connections)',
      path: filtered,
      headers,
      connections: 10,
    },
    {
      name: 'GET /v1/collection first page, no filter (1 connection)',
      path: '/v1/collection',
      headers,
      connections: 1,
    },
    {
      name: 'GET /v1/collection/{id} (10 connections)',
      path: `/v1/collection/${one}`,
      headers,
      connections: 10,
    },
    // Last: it adds to what the lists above read. Every job names the same two tags, whose entry
    // counts each one moves (a popular pair, as the busiest tags are).
    {
      name: 'POST /v1/collection with 2 tags (10 connections)',
      method: 'POST',
      path: '/v1/collection',
      headers,
      body: {
        type: 'job',
        name: 'A job posted by the bench',
        description: 'Posted with two tags',
        paymentFee: 120,
        tags: ['Bench Tag One', 'Bench Tag Two'],
      },
      connections: 10,
    },
  ]
}
