// The work lists and the chat send, at 10 connections: a creator's sent invites and a talent's
// received ones (GET /v1/invite), a job's applications as its creator lists them and a talent's
// own (GET /v1/collection/{id}/applications, GET /v1/applications), each page with the people and
// the job every record names; a talent's notifications and feeds (of those invites); and a message
// sent to a job's conversation; invites sent, each to a job and talent not paired before. Twelve
// talents (four with --quick), each invited to three jobs and applying to a public one.
import type { BenchContext, BenchUser, Scenario } from '../lib.ts'

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const auth = (u: BenchUser) => ({ authorization: `Bearer ${u.token}` })
  async function call(user: BenchUser, method: 'GET' | 'POST', url: string, payload?: object) {
    const res = await ctx.app.inject({ method, url, headers: auth(user), ...(payload ? { payload } : {}) })
    if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
    return res.json().data
  }
  const talents = ctx.quick ? 4 : 12
  const creator = await ctx.createUser()
  const people: BenchUser[] = []
  for (let i = 0; i < talents; i++) people.push(await ctx.createUser())
  const job = async (name: string, isPrivate: boolean) =>
    (
      await call(creator, 'POST', '/v1/collection', {
        type: 'job',
        name,
        description: 'A job for the work bench',
        paymentFee: 150,
        isPrivate,
        deliveryDate: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
      })
    )._id as string
  const jobs = [
    await job('Work bench A', true),
    await job('Work bench B', false),
    await job('Work bench C', false),
  ]
  const open = await job('Work bench open', false)
  for (const j of jobs)
    for (const p of people) await call(creator, 'POST', '/v1/invite', { recipient: p.id, collection: j })
  for (const p of people)
    await call(p, 'POST', `/v1/collection/${open}/applications`, { message: 'I can do it', amount: 120 })
  // A conversation of the first job, its talent hired.
  const talent = people[0]!
  const invite = (await call(talent, 'GET', `/v1/invite?role=received&collection=${jobs[0]}`)).data[0]
  await call(talent, 'POST', `/v1/invite/${invite._id}/accept`)
  const conversation = (await call(creator, 'POST', '/v1/chat', { collectionId: jobs[0] }))._id as string
  // Jobs no one is invited to yet: each invite sent below is one of them to one of the talents.
  const fresh: string[] = []
  for (let i = 0; i < (ctx.quick ? 10 : 25); i++)
    fresh.push(await job(`Work bench invites ${i}`, i % 2 === 0))
  const invites = fresh.flatMap((collection) => people.map((p) => ({ recipient: p.id, collection })))
  const cases: Scenario[] = [
    {
      name: 'GET /v1/invite (creator, 12 a page)',
      path: '/v1/invite',
      headers: auth(creator),
      connections: 10,
    },
    {
      name: 'GET /v1/invite?role=received (talent)',
      path: '/v1/invite?role=received',
      headers: auth(people[1]!),
      connections: 10,
    },
    {
      name: 'GET /v1/collection/{id}/applications (creator)',
      path: `/v1/collection/${open}/applications`,
      headers: auth(creator),
      connections: 10,
    },
    {
      name: 'GET /v1/applications (talent)',
      path: '/v1/applications',
      headers: auth(people[1]!),
      connections: 10,
    },
    {
      name: 'GET /v1/notifications (talent)',
      path: '/v1/notifications',
      headers: auth(people[1]!),
      connections: 10,
    },
    {
      name: 'GET /v1/feeds (talent)',
      path: '/v1/feeds',
      headers: auth(people[1]!),
      connections: 10,
    },
    {
      name: 'POST /v1/chat/{id}/messages',
      method: 'POST',
      path: `/v1/chat/${conversation}/messages`,
      headers: auth(creator),
      body: { content: 'How is it going?' },
      connections: 10,
    },
    {
      name: `POST /v1/invite (${invites.length} invites, each once)`,
      method: 'POST',
      path: '/v1/invite',
      headers: auth(creator),
      bodies: invites,
      connections: 10,
    },
  ]
  // Each read once (first-use compilation).
  for (const c of cases) {
    if ('run' in c || (c.method ?? 'GET') !== 'GET') continue
    const res = await ctx.app.inject({ method: 'GET', url: c.path, headers: c.headers ?? {} })
    if (res.statusCode !== 200) throw new Error(`${c.path}: ${res.statusCode} ${res.body}`)
  }
  return cases
}
