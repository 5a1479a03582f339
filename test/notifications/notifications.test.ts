// Notifications through the HTTP API: fed by real work steps (a job, invites, answers), their
// shape, owner-only access, filters, pagination and read state, the e-mail preferences, and the
// digest that turns a burst into one mail, exactly once.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let creator: TestUser
let talent: TestUser
let stranger: TestUser

beforeAll(async () => {
  t = await createTestApp()
  creator = await createUser(t, { firstName: 'Cora', lastName: 'Creator' })
  talent = await createUser(t, { firstName: 'Tala', lastName: 'Talent' })
  stranger = await createUser(t, { firstName: 'Stan', lastName: 'Stranger' })
}, 120_000)
afterAll(() => t?.close())

async function postJob(user: TestUser, name = 'Landing page') {
  const res = await t.req({
    method: 'POST',
    url: '/v1/collection',
    token: user.token,
    payload: { type: 'job', name, description: 'One responsive page', isPrivate: false, paymentFee: 100 },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data._id as string
}

async function invite(jobId: string, to: TestUser) {
  const res = await t.req({
    method: 'POST',
    url: '/v1/invite/',
    token: creator.token,
    payload: { recipient: to.id, collection: jobId },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data._id as string
}

const list = (user: TestUser | undefined, query = '') =>
  t.req({ method: 'GET', url: `/v1/notifications/${query}`, ...(user ? { token: user.token } : {}) })

const mailsTo = async (user: TestUser) =>
  t.database.db
    .selectFrom('mails')
    .select(['subject', 'text'])
    .where('toAddress', '=', user.email.toLowerCase())
    .where('kind', '=', 'notification_digest')
    .execute()

const digestJobs = (user: TestUser) =>
  t.database.db
    .selectFrom('jobs')
    .select(['id', 'status'])
    .where('kind', '=', 'notifications.email')
    .where(sql<string>`payload->>'userId'`, '=', user.id)
    .execute()

describe('notifications', () => {
  let jobId = ''
  let inviteId = ''

  it('an invite notifies its recipient once, with the SDK shape, and never its sender', async () => {
    jobId = await postJob(creator)
    inviteId = await invite(jobId, talent)

    const events = await t.database.db
      .selectFrom('events')
      .select(['type', 'audience'])
      .where('collectionId', '=', jobId)
      .orderBy('createdAt')
      .execute()
    expect(events.map((e) => e.type)).toEqual(['collection.created', 'invite.sent'])

    const res = await list(talent)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.status).toBe('success')
    expect(body.data).toMatchObject({ page: 1, pages: 1, limit: 12, total: 1, unread: 1 })
    const [n] = body.data.notification
    expect(n).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      owner: {
        _id: talent.id,
        firstName: 'Tala',
        lastName: 'Talent',
        type: expect.any(String),
        score: expect.any(Number),
        profile: { talent: { tags: [], availability: expect.any(String), skillIds: [] } },
      },
      notifyUser: expect.objectContaining({ _id: creator.id, firstName: 'Cora', lastName: 'Creator' }),
      title: 'New invite',
      description: expect.any(String),
      read: false,
      data: inviteId,
      isAdmin: false,
      type: 'invite_received',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    // the sender caused it: nothing for them, and nothing for anyone else
    expect((await list(creator)).json().data.total).toBe(0)
    expect((await list(stranger)).json().data).toMatchObject({ total: 0, unread: 0, notification: [] })
  })

  it('accepting notifies the sender with invite_accepted', async () => {
    const res = await t.req({ method: 'POST', url: `/v1/invite/${inviteId}/accept`, token: talent.token })
    expect(res.statusCode, res.body).toBe(200)
    const mine = (await list(creator)).json().data
    expect(mine.notification.map((n: { type: string }) => n.type)).toEqual(['invite_accepted'])
    expect(mine.notification[0].notifyUser._id).toBe(talent.id)
    const rows = await t.database.db
      .selectFrom('events')
      .select('id')
      .where('collectionId', '=', jobId)
      .where('type', '=', 'invite.accepted')
      .execute()
    expect(rows).toHaveLength(1)
  })

  it('needs a token, and one user never marks another’s notification', async () => {
    expect((await list(undefined)).statusCode).toBe(401)
    const id = (await list(talent)).json().data.notification[0]._id
    const other = await t.req({ method: 'POST', url: `/v1/notifications/mark/${id}`, token: stranger.token })
    expect(other.statusCode).toBe(404)
    expect(other.json()).toMatchObject({ status: 'error', data: { code: 'NOT_FOUND' } })
    expect((await list(talent)).json().data.unread).toBe(1)
    const bad = await t.req({ method: 'POST', url: '/v1/notifications/mark/nope', token: talent.token })
    expect(bad.statusCode).toBe(400)
    const noToken = await t.req({ method: 'POST', url: '/v1/notifications/mark/all' })
    expect(noToken.statusCode).toBe(401)
  })

  it('marks one read, filters by read state and type, and marks all read', async () => {
    const id = (await list(talent)).json().data.notification[0]._id
    const marked = await t.req({ method: 'POST', url: `/v1/notifications/mark/${id}`, token: talent.token })
    expect(marked.statusCode).toBe(200)
    expect(marked.json().data).toMatchObject({ _id: id, read: true })
    expect((await list(talent)).json().data.unread).toBe(0)
    expect((await list(talent, '?read=false')).json().data.total).toBe(0)
    expect((await list(talent, '?read=true')).json().data.total).toBe(1)
    expect((await list(talent, '?type=new_deposit')).json().data.total).toBe(0)
    expect((await list(talent, '?type=invite_received')).json().data.total).toBe(1)
    expect((await list(talent, '?type=bogus')).statusCode).toBe(400)
    expect((await list(talent, '?limit=101')).statusCode).toBe(400)

    // three more invites (three more jobs), then everything read at once
    for (const name of ['A', 'B', 'C']) await invite(await postJob(creator, name), talent)
    expect((await list(talent)).json().data).toMatchObject({ total: 4, unread: 3 })
    const all = await t.req({ method: 'POST', url: '/v1/notifications/mark/all', token: talent.token })
    expect(all.statusCode).toBe(200)
    expect(all.json().data).toEqual({ updated: 3, unread: 0 })
    expect((await list(talent)).json().data.unread).toBe(0)
    // the creator's notification stays unread
    expect((await list(creator)).json().data.unread).toBe(1)
  })

  it('paginates newest first', async () => {
    const p1 = (await list(talent, '?limit=3&page=1')).json().data
    const p2 = (await list(talent, '?limit=3&page=2')).json().data
    expect(p1).toMatchObject({ page: 1, pages: 2, limit: 3, total: 4 })
    expect(p1.notification).toHaveLength(3)
    expect(p2.notification).toHaveLength(1)
    const ids = [...p1.notification, ...p2.notification].map((n: { _id: string }) => n._id)
    expect(new Set(ids).size).toBe(4)
    const times = [...p1.notification, ...p2.notification].map((n: { createdAt: string }) => n.createdAt)
    expect([...times].sort().reverse()).toEqual(times)
  })

  it('answers a page with its totals and the users it names in one statement (two past the end)', async () => {
    const statements = async (query: string) => {
      const before = t.database.queryCount()
      const data = (await list(talent, query)).json().data
      return { queries: t.database.queryCount() - before, data }
    }
    const page = await statements('?limit=3')
    expect(page.queries).toBe(1)
    expect(page.data).toMatchObject({ total: 4, unread: expect.any(Number) })
    expect(page.data.notification[0].owner).toMatchObject({ _id: talent.id, firstName: 'Tala' })
    const past = await statements('?limit=3&page=9')
    expect(past.queries).toBeLessThanOrEqual(2)
    expect(past.data).toMatchObject({ total: 4, unread: page.data.unread, notification: [] })
  })
})

describe('notification e-mail', () => {
  it('a burst is one digest mail, sent once even when the job runs again', async () => {
    const person = await createUser(t, { firstName: 'Dora' })
    // committed with the change: the digest job is there before any worker ran
    for (const name of ['D1', 'D2', 'D3']) await invite(await postJob(creator, name), person)
    const queued = await digestJobs(person)
    expect(queued).toHaveLength(1)
    expect(await mailsTo(person)).toHaveLength(0)

    // a minute later the digest goes out as one mail naming the three notifications
    t.clock.advance(61_000)
    await t.drain()
    const mails = await mailsTo(person)
    expect(mails).toHaveLength(1)
    expect(mails[0]!.subject).toBe('3 new notifications')
    expect(mails[0]!.text.match(/New invite/g)).toHaveLength(3)

    // the digest run again (a worker died after its commit): nothing is sent twice
    await t.app.services.notifications.sendDigest({ userId: person.id })
    await t.drain()
    expect(await mailsTo(person)).toHaveLength(1)

    // a later notification starts a new digest
    await invite(await postJob(creator, 'D4'), person)
    t.clock.advance(61_000)
    await t.drain()
    const after = await mailsTo(person)
    expect(after).toHaveLength(2)
    expect(after.map((m) => m.subject)).toContain('New invite')
  })

  it('preferences: defaults, a chosen list, none, and unknown types refused', async () => {
    const person = await createUser(t, { firstName: 'Pia' })
    const get = await t.req({ method: 'GET', url: '/v1/account/notifications', token: person.token })
    expect(get.statusCode).toBe(200)
    expect(get.json().data.email).toContain('invite_received')
    expect(get.json().data.available).toContain('new_deposit')

    const none = await t.req({
      method: 'PUT',
      url: '/v1/account/notifications',
      token: person.token,
      payload: { email: [] },
    })
    expect(none.statusCode, none.body).toBe(200)
    expect(none.json().data.email).toEqual([])
    await invite(await postJob(creator, 'P1'), person)
    expect(await digestJobs(person)).toHaveLength(0)
    t.clock.advance(61_000)
    await t.drain()
    expect(await mailsTo(person)).toHaveLength(0)
    // the notification itself is still there
    expect((await list(person)).json().data.total).toBe(1)

    const some = await t.req({
      method: 'PUT',
      url: '/v1/account/notifications',
      token: person.token,
      payload: { email: ['new_deposit', 'invite_received', 'invite_received'] },
    })
    expect(some.json().data.email).toEqual(['new_deposit', 'invite_received'])

    const bad = await t.req({
      method: 'PUT',
      url: '/v1/account/notifications',
      token: person.token,
      payload: { email: ['everything'] },
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().data.code).toBe('VALIDATION_ERROR')
    expect((await t.req({ method: 'GET', url: '/v1/account/notifications' })).statusCode).toBe(401)
  })
})
