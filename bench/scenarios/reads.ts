// The authenticated reads every client makes most, at 50 connections on one user's token: the
// profile, the wallet, the coin list and one collection. The target is 0.35 of the bare Fastify
// ceiling of the same run (PostgreSQL) with p99 under 20 ms; `queriesPerReq` shows what each costs.
import { sql } from 'kysely'
import type { BenchContext, Scenario } from '../lib.ts'

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const user = await ctx.createUser()
  const headers = { authorization: `Bearer ${user.token}` }
  const id = `cd${Date.now().toString(16).padStart(22, '0')}`
  await sql`
    insert into collections (id, creator_id, type, name, description, slug, payment_fee, tags_data,
                             tag_ids, tag_keys, search_text, meta)
    values (${id}, ${user.id}, 'job', 'Bench read', 'One collection read by id', ${`bench-read-${id}`},
            100, '{}', '{}', '{}', 'bench read', '{}'::jsonb)`.execute(ctx.app.services.database.db)
  // Warm each path once (first-use compilation, the wallet's first creation).
  for (const url of ['/v1/account', '/v1/wallet', '/v1/payment/coins', `/v1/collection/${id}`]) {
    const res = await ctx.app.inject({ method: 'GET', url, headers })
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`)
  }
  return [
    { name: 'GET /v1/account', path: '/v1/account', headers },
    { name: 'GET /v1/wallet', path: '/v1/wallet', headers },
    { name: 'GET /v1/payment/coins', path: '/v1/payment/coins', headers },
    { name: 'GET /v1/collection/{id}', path: `/v1/collection/${id}`, headers },
  ]
}
