// The people search over 10,000 accounts (1,000,000 on PostgreSQL without --quick, 2,000 with it) (bulk SQL: profiles, 200 tags, two tags each), then
// GET /v1/account/user with a text search, two tags, a completeness floor and a role (the indexed
// path), the unfiltered first page, one public profile, and the caller's full profile. Latency
// target (one connection): single-digit milliseconds p50 for the filtered search.
import { sql } from 'kysely'
import type { BenchContext, Scenario } from '../lib.ts'

const TAGS = 200
const CHUNK = 100_000

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const db = ctx.app.services.database.db
  const viewer = await ctx.createUser()
  const USERS = ctx.large ? 1_000_000 : ctx.quick ? 2_000 : 10_000
  const started = Date.now()

  await sql`
    insert into tags (id, name, key, color, type, entry_count)
    select 'ab' || lpad(to_hex(i), 22, '0'), 'Acct skill ' || i, 'acct-skill' || i, '#3366cc', 'tags', 100
    from generate_series(0, ${TAGS - 1}::int) i
    on conflict (key) do nothing`.execute(db)
  // Bulk load with the GIN pending lists on (their entries are merged once by VACUUM), then back
  // to the migrations' setting of direct GIN updates.
  for (const index of ['users_search_fts', 'users_tag_keys'])
    await sql`alter index ${sql.ref(index)} set (fastupdate = on)`.execute(db)
  // Account i: about word `topic<i mod 100>`, tags acct-skill<i mod 200> and acct-skill<(7i+3) mod
  // 200>, completeness i mod 101, one in five a partner, one in twenty private, one second apart.
  for (let from = 1; from <= USERS; from += CHUNK) {
    const to = Math.min(from + CHUNK - 1, USERS)
    await sql`
    insert into users (id, email, first_name, last_name, status, email_verified, email_verified_at, role,
                       profile, is_private, profile_completeness, user_name, referral_code, search_text,
                       tag_keys, socials, created_at, updated_at)
    select 'aa' || lpad(to_hex(i), 22, '0'),
           'bench-user' || i || '@bench.example',
           'First' || i, 'Last' || i, true, true, now(),
           case when i % 5 = 0 then 'partner' else 'user' end,
           jsonb_build_object(
             'contact', jsonb_build_object('city', 'City ' || (i % 50)),
             'bio', jsonb_build_object('title', 'Title ' || (i % 30)),
             'talent', jsonb_build_object('about', 'Works on topic' || (i % 100), 'availability', 'available',
               'tags', jsonb_build_array('Acct skill ' || (i % ${TAGS}), 'Acct skill ' || ((i * 7 + 3) % ${TAGS})))),
           i % 20 = 0,
           i % 101,
           'acctbench' || i,
           'BR' || lpad(to_hex(i), 8, '0'),
           'first' || i || ' last' || i || ' acctbench' || i || ' title ' || (i % 30) || ' works on topic' || (i % 100)
             || ' acct skill ' || (i % ${TAGS}) || ' acct skill ' || ((i * 7 + 3) % ${TAGS}),
           array_remove(array['acct-skill' || (i % ${TAGS}),
             case when (i * 7 + 3) % ${TAGS} <> i % ${TAGS} then 'acct-skill' || ((i * 7 + 3) % ${TAGS}) end], null),
           '{}'::jsonb,
           now() - i * interval '1 second',
           now() - i * interval '1 second'
    from generate_series(${from}::int, ${to}::int) i`.execute(db)
    await sql`
    insert into user_tags (user_id, tag_id, position)
    select 'aa' || lpad(to_hex(i), 22, '0'), 'ab' || lpad(to_hex(i % ${TAGS}), 22, '0'), 0
    from generate_series(${from}::int, ${to}::int) i
    union all
    select 'aa' || lpad(to_hex(i), 22, '0'), 'ab' || lpad(to_hex((i * 7 + 3) % ${TAGS}), 22, '0'), 1
    from generate_series(${from}::int, ${to}::int) i
    where (i * 7 + 3) % ${TAGS} <> i % ${TAGS}`.execute(db)
  }
  // As autovacuum would do after a bulk load: visibility map and GIN pending list settled, here
  // rather than by autovacuum in the background of the cases that follow.
  await sql`vacuum analyze users`.execute(db)
  await sql`vacuum analyze user_tags`.execute(db)
  await sql`analyze tags`.execute(db)
  for (const index of ['users_search_fts', 'users_tag_keys'])
    await sql`alter index ${sql.ref(index)} set (fastupdate = off)`.execute(db)
  const seededMs = Date.now() - started

  const headers = { authorization: `Bearer ${viewer.token}` }
  const filtered =
    '/v1/account/user?search=topic42&tags=acct-skill42,acct-skill142&profileCompletenessMin=20&role=user'
  const check = await ctx.app.inject({ method: 'GET', url: filtered, headers })
  const matched = check.statusCode === 200 ? (check.json().data.total as number) : -1
  const one = 'aa' + (42).toString(16).padStart(22, '0')

  return [
    {
      name: `seed ${USERS.toLocaleString('en')} accounts + 200 tags`,
      run: async () => ({ seededMs, filteredMatches: matched }),
    },
    {
      name: 'GET /v1/account/user search+2 tags+completeness+role (1 connection)',
      path: filtered,
      headers,
      connections: 1,
    },
    {
      name: 'GET /v1/account/user search+2 tags+completeness+role (10 connections)',
      path: filtered,
      headers,
      connections: 10,
    },
    {
      name: 'GET /v1/account/user first page, no filter (1 connection)',
      path: '/v1/account/user',
      headers,
      connections: 1,
    },
    {
      name: 'GET /v1/account/user?search=first42 (1 connection)',
      path: '/v1/account/user?search=first42',
      headers,
      connections: 1,
    },
    {
      name: 'GET /v1/account/user/{id} (10 connections)',
      path: `/v1/account/user/${one}`,
      headers,
      connections: 10,
    },
    { name: 'GET /v1/account (10 connections)', path: '/v1/account', headers, connections: 10 },
  ]
}
