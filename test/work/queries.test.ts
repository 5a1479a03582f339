// The invites list (GET /v1/invite) and the applications lists (GET /v1/collection/{id}/applications,
// GET /v1/applications) answer from one statement: the page, the number of all that match, and the
// people and jobs each record names. Each record reads as the one-record route shows it. Sending an
// invite (POST /v1/invite) writes the invite, the job's record of it and the audit record in one
// statement after the job's lock; its notification, with the event, and the live push, with the
// digest job, add one each.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCollection, createMember, dateIn, expectError, type Member } from '../collections/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
let alice: Member
let bob: Member
let carol: Member
let dave: Member
let privateJob = ''
let publicJob = ''
let emptyJob = ''
const invites: string[] = []
const applications: string[] = []

async function post(url: string, token: string, payload: object) {
  const res = await t.req({ method: 'POST', url, token, payload })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data
}

/** GET `url` as `token`: the answer and the number of statements it took. */
async function counted(url: string, token: string) {
  const before = t.database.queryCount()
  const res = await t.req({ method: 'GET', url, token })
  return { queries: t.database.queryCount() - before, res }
}

async function listed(url: string, token: string) {
  const { queries, res } = await counted(url, token)
  expect(res.statusCode, res.body).toBe(200)
  return { queries, data: res.json().data }
}

beforeAll(async () => {
  t = await createTestApp()
  alice = await createMember(t, { firstName: 'Alice' })
  bob = await createMember(t, {
    firstName: 'Bob',
    profile: { talent: { tags: ['go'], availability: 'now' } },
  })
  carol = await createMember(t, { firstName: 'Carol' })
  dave = await createMember(t, { firstName: 'Dave' })
  privateJob = (
    await createCollection(t, alice.token, {
      name: 'Private job',
      isPrivate: true,
      paymentFee: '120.50',
      deliveryDate: dateIn(30),
      category: 'web',
    })
  )._id
  publicJob = (await createCollection(t, alice.token, { name: 'Public job', paymentFee: 99 }))._id
  emptyJob = (await createCollection(t, alice.token, { name: 'Nobody applied' }))._id
  for (const [job, who] of [
    [privateJob, bob],
    [privateJob, carol],
    [publicJob, bob],
  ] as const) {
    t.clock.advance(1000)
    invites.push(
      (await post('/v1/invite', alice.token, { recipient: who.id, collection: job, message: 'Hi' }))._id,
    )
  }
  for (const [who, amount] of [
    [bob, 140],
    [carol, undefined],
    [dave, 10.5],
  ] as const) {
    t.clock.advance(1000)
    const body = { message: `I can do it (${who.firstName})`, ...(amount !== undefined ? { amount } : {}) }
    applications.push((await post(`/v1/collection/${publicJob}/applications`, who.token, body))._id)
  }
  // Dave's account is gone since (soft-deleted): his application still lists him.
  await sql`update users set deleted_at = now() where id = ${dave.id}`.execute(t.database.db)
  // Each session once, so that the counts below are of the lists alone.
  for (const m of [alice, bob, carol, dave]) await t.req({ method: 'GET', url: '/v1/invite', token: m.token })
})
afterAll(async () => {
  await t?.close()
})

/** The digest mail jobs of `userId` in `status`. */
async function digestJobsOf(userId: string, status: string) {
  const rows = await t.database.db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', 'notifications.email')
    .where('status', '=', status)
    .where(sql<boolean>`payload->>'userId' = ${userId}`)
    .execute()
  return rows.length
}

/** The record as its one-record route answers it. */
async function one(url: string, token: string) {
  const res = await t.req({ method: 'GET', url, token })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data
}

describe('the invites list’s queries', () => {
  it('answers the sender’s list, with the people and jobs it names, in one query', async () => {
    const { queries, data } = await listed('/v1/invite?limit=2', alice.token)
    expect(queries).toBe(1)
    expect(data).toMatchObject({ total: 3, pages: 2, page: 1, limit: 2 })
    expect(data.data.map((i: { _id: string }) => i._id)).toEqual([invites[2], invites[1]])
    for (const item of data.data) expect(item).toEqual(await one(`/v1/invite/${item._id}`, alice.token))
    const first = data.data[1]
    expect(first.sender).toMatchObject({ _id: alice.id, firstName: 'Alice' })
    expect(first.receiver).toMatchObject({ _id: carol.id, firstName: 'Carol' })
    expect(first.data).toMatchObject({
      _id: privateJob,
      name: 'Private job',
      paymentFee: 120.5,
      isPrivate: true,
      category: 'web',
      deliveryDate: `${dateIn(30)}T00:00:00.000Z`,
      creator: alice.id,
      owners: [],
      parent: null,
    })
    expect(first.description).toBe('Alice Tester invited you to “Private job”')
  })

  it('answers the filters and the page past the end in one query each', async () => {
    const received = await listed('/v1/invite?role=received', bob.token)
    expect(received.queries).toBe(1)
    expect(received.data.total).toBe(2)
    expect(received.data.data[1]).toEqual(await one(`/v1/invite/${invites[0]}`, bob.token))
    expect(received.data.data[1].receiver.profile.talent).toEqual({ tags: ['go'], availability: 'now' })
    const filtered = await listed(`/v1/invite?collection=${privateJob}&status=pending`, alice.token)
    expect(filtered.queries).toBe(1)
    expect(filtered.data.total).toBe(2)
    const past = await listed('/v1/invite?page=5&limit=2', alice.token)
    expect(past.queries).toBe(1)
    expect(past.data).toMatchObject({ total: 3, pages: 2, page: 5, limit: 2, data: [] })
    const none = await listed('/v1/invite?role=sent', bob.token)
    expect(none.queries).toBe(1)
    expect(none.data).toMatchObject({ total: 0, pages: 0, data: [] })
  })
})

describe('the applications lists’ queries', () => {
  it('answers the creator’s list of a job, with the applicants and the job, in one query', async () => {
    const { queries, data } = await listed(`/v1/collection/${publicJob}/applications`, alice.token)
    expect(queries).toBe(1)
    expect(data).toMatchObject({ total: 3, pages: 1, page: 1, limit: 12 })
    expect(data.data.map((a: { _id: string }) => a._id)).toEqual([...applications].reverse())
    for (const item of data.data) expect(item).toEqual(await one(`/v1/applications/${item._id}`, alice.token))
    expect(data.data[0]).toMatchObject({ applicant: { _id: dave.id, firstName: 'Dave' }, amount: 10.5 })
    expect(data.data[1]).toMatchObject({ applicant: { _id: carol.id }, amount: null })
    expect(data.data[2].data).toMatchObject({ _id: publicJob, name: 'Public job', paymentFee: 99 })
    const page2 = await listed(`/v1/collection/${publicJob}/applications?limit=2&page=2`, alice.token)
    expect(page2.queries).toBe(1)
    expect(page2.data).toMatchObject({ total: 3, pages: 2, page: 2 })
    expect(page2.data.data.map((a: { _id: string }) => a._id)).toEqual([applications[0]])
  })

  it('reads the job apart only when nothing was listed: to tell why, or that there is none', async () => {
    const empty = await listed(`/v1/collection/${emptyJob}/applications`, alice.token)
    expect(empty.queries).toBeLessThanOrEqual(2)
    expect(empty.data).toMatchObject({ total: 0, pages: 0, data: [] })
    const filtered = await listed(`/v1/collection/${publicJob}/applications?status=accepted`, alice.token)
    expect(filtered.queries).toBeLessThanOrEqual(2)
    expect(filtered.data.total).toBe(0)
    const stranger = await counted(`/v1/collection/${publicJob}/applications`, bob.token)
    expect(stranger.queries).toBeLessThanOrEqual(2)
    expectError(stranger.res, 403, 'FORBIDDEN')
    const hidden = await counted(`/v1/collection/${privateJob}/applications`, dave.token)
    expectError(hidden.res, 404, 'NOT_FOUND')
  })

  it('answers the applicant’s own list in one query', async () => {
    const { queries, data } = await listed('/v1/applications', bob.token)
    expect(queries).toBe(1)
    expect(data.total).toBe(1)
    expect(data.data[0]).toEqual(await one(`/v1/applications/${applications[0]}`, bob.token))
    const other = await listed(`/v1/applications?collection=${privateJob}`, bob.token)
    expect(other.queries).toBe(1)
    expect(other.data).toMatchObject({ total: 0, data: [] })
  })
})

describe('sending an invite', () => {
  it('takes four statements, the answer read with the write', async () => {
    const eve = await createMember(t, { firstName: 'Eve' })
    await t.req({ method: 'GET', url: '/v1/invite', token: eve.token })
    const send = async (name: string) => {
      const job = (await createCollection(t, alice.token, { name, isPrivate: true }))._id
      const before = t.database.queryCount()
      const res = await t.req({
        method: 'POST',
        url: '/v1/invite',
        token: alice.token,
        payload: { recipient: eve.id, collection: job, message: ' Join? ' },
      })
      expect(res.statusCode, res.body).toBe(200)
      return { job, queries: t.database.queryCount() - before, sent: res.json().data }
    }
    // The first invite to Eve reads her connection filters (none), which the process keeps since.
    expect((await send('Invite me first')).queries).toBe(5)
    // Her digest mailed, her latch is down again: the next invite raises it and queues a digest.
    t.clock.advance(61_000)
    await t.drain()
    expect(await digestJobsOf(eve.id, 'queued')).toBe(0)
    // The job locked; the invite with the job's record and the audit record (and the answer's
    // people and job); the notification with the mail preference and the digest latch, and the
    // event's own row; the notification's live push with the digest job.
    const { job, queries, sent } = await send('Invite me')
    expect(queries).toBe(4)
    expect(await digestJobsOf(eve.id, 'queued')).toBe(1)
    expect(sent).toEqual(await one(`/v1/invite/${sent._id}`, alice.token))
    expect(sent).toMatchObject({ message: 'Join?', status: 'pending', receiver: { _id: eve.id } })
    const row = await t.database.db
      .selectFrom('collections')
      .select(['inviteIds', 'inviteeIds'])
      .where('id', '=', job)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ inviteIds: [sent._id], inviteeIds: [eve.id] })
    const audit = await t.database.db
      .selectFrom('auditLog')
      .select(['userId', 'meta'])
      .where('action', '=', 'work.invite_sent')
      .where(sql<boolean>`meta->>'inviteId' = ${sent._id}`)
      .executeTakeFirstOrThrow()
    expect(audit).toEqual({ userId: alice.id, meta: { inviteId: sent._id, collectionId: job, to: eve.id } })
    // The event and its notification, which names it.
    const event = await t.database.db
      .selectFrom('events')
      .select(['id', 'type', 'actorId', 'audience'])
      .where('type', '=', 'invite.sent')
      .where(sql<boolean>`data->>'inviteId' = ${sent._id}`)
      .executeTakeFirstOrThrow()
    expect(event).toMatchObject({ type: 'invite.sent', actorId: alice.id, audience: [eve.id] })
    const notices = await t.database.db
      .selectFrom('notifications')
      .select(['userId', 'type'])
      .where('eventId', '=', event.id)
      .execute()
    expect(notices).toEqual([{ userId: eve.id, type: 'invite_received' }])
    // The invitee now sees the private job, and was notified.
    expect((await t.req({ method: 'GET', url: `/v1/collection/${job}`, token: eve.token })).statusCode).toBe(
      200,
    )
    const inbox = await t.req({ method: 'GET', url: '/v1/notifications/', token: eve.token })
    expect(inbox.json().data.notification).toHaveLength(2)
    // A third job: the digest latch is up already, so no digest job; the same four statements.
    expect((await send('Invite me too')).queries).toBe(4)
    expect(await digestJobsOf(eve.id, 'queued')).toBe(1)
  })

  it('refuses as before and writes nothing', async () => {
    const job = (await createCollection(t, alice.token, { name: 'Refusals' }))._id
    const first = await post('/v1/invite', alice.token, { recipient: carol.id, collection: job })
    const send = (recipient: string, token = alice.token) =>
      t.req({ method: 'POST', url: '/v1/invite', token, payload: { recipient, collection: job } })
    expectError(await send(carol.id), 409, 'INVITE_ALREADY_PENDING')
    expectError(await send(dave.id), 404, 'NOT_FOUND')
    expectError(await send('f'.repeat(24)), 404, 'NOT_FOUND')
    expectError(await send(alice.id), 400, 'VALIDATION_ERROR')
    expectError(await send(carol.id, bob.token), 403, 'FORBIDDEN')
    const row = await t.database.db
      .selectFrom('collections')
      .select(['inviteIds', 'inviteeIds', 'version'])
      .where('id', '=', job)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ inviteIds: [first._id], inviteeIds: [carol.id] })
    const invites = await t.database.db
      .selectFrom('invites')
      .select('id')
      .where('collectionId', '=', job)
      .execute()
    expect(invites).toEqual([{ id: first._id }])
  })
})
