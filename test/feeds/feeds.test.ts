// Feeds through the HTTP API: entries fed by real work steps, public ones for everyone and private
// ones for the people they concern, filters, pagination, and dismissals per viewer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let creator: TestUser
let talent: TestUser
let stranger: TestUser
let publicJob = ''
let privateJob = ''

async function postJob(user: TestUser, name: string, isPrivate: boolean) {
  const res = await t.req({
    method: 'POST',
    url: '/v1/collection',
    token: user.token,
    payload: { type: 'job', name, description: 'One responsive page', isPrivate, paymentFee: 100 },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data._id as string
}

const feeds = (user: TestUser | undefined, query = '') =>
  t.req({ method: 'GET', url: `/v1/feeds/${query}`, ...(user ? { token: user.token } : {}) })
const typesOf = (data: { data: { type: string; data: string }[] }, job: string) =>
  data.data.filter((f) => f.data === job).map((f) => f.type)

beforeAll(async () => {
  t = await createTestApp()
  creator = await createUser(t, { firstName: 'Cora' })
  talent = await createUser(t, { firstName: 'Tala' })
  stranger = await createUser(t, { firstName: 'Stan' })
  publicJob = await postJob(creator, 'Open job', false)
  privateJob = await postJob(creator, 'Quiet job', true)
  const inv = await t.req({
    method: 'POST',
    url: '/v1/invite/',
    token: creator.token,
    payload: { recipient: talent.id, collection: privateJob },
  })
  expect(inv.statusCode, inv.body).toBe(200)
  const acc = await t.req({
    method: 'POST',
    url: `/v1/invite/${inv.json().data._id}/accept`,
    token: talent.token,
  })
  expect(acc.statusCode, acc.body).toBe(200)
}, 120_000)
afterAll(() => t?.close())

describe('feeds', () => {
  it('public entries are seen by everyone, private ones only by the people they concern', async () => {
    const s = (await feeds(stranger)).json().data
    expect(typesOf(s, publicJob)).toEqual(['collection_created'])
    expect(typesOf(s, privateJob)).toEqual([])
    const [entry] = s.data.filter((f: { data: string }) => f.data === publicJob)
    expect(entry).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      creator: creator.id,
      owner: creator.id,
      owners: [creator.id],
      data: publicJob,
      title: 'New job',
      description: expect.any(String),
      type: 'collection_created',
      isPublic: true,
      closed: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    // the private job's invite and acceptance: its two parties
    expect(typesOf((await feeds(talent)).json().data, privateJob)).toEqual([
      'collection_invite_accepted',
      'collection_invite',
    ])
    expect(typesOf((await feeds(creator)).json().data, privateJob)).toEqual([
      'collection_invite_accepted',
      'collection_invite',
      'collection_created',
    ])
    // and by id: someone else's private entry is not found
    const hidden = (await feeds(talent)).json().data.data[0]._id
    expect(
      (await t.req({ method: 'GET', url: `/v1/feeds/${hidden}`, token: stranger.token })).statusCode,
    ).toBe(404)
    expect(
      (await t.req({ method: 'GET', url: `/v1/feeds/${hidden}`, token: talent.token })).json().data._id,
    ).toBe(hidden)
    expect((await feeds(undefined)).statusCode).toBe(401)
  })

  it('filters by isOwner (as the SDK sends it), type, owner and isPublic, and paginates', async () => {
    expect(typesOf((await feeds(stranger, '?isOwner=true')).json().data, publicJob)).toEqual([])
    const mine = (await feeds(creator, '?isOwner=true&type=collection_created')).json().data
    expect(mine.total).toBe(2)
    expect((await feeds(stranger, `?owner=${creator.id}`)).json().data.total).toBe(1)
    expect(
      (await feeds(creator, '?isPublic=false'))
        .json()
        .data.data.every((f: { isPublic: boolean }) => !f.isPublic),
    ).toBe(true)
    const p1 = (await feeds(creator, '?limit=2&page=1')).json().data
    const p2 = (await feeds(creator, '?limit=2&page=2')).json().data
    expect(p1).toMatchObject({ page: 1, limit: 2, total: 4, pages: 2 })
    expect(p2.data).toHaveLength(2)
    expect((await feeds(creator, '?type=nope')).statusCode).toBe(400)
  })

  it('answers a page with its total in one statement (two past the end)', async () => {
    const statements = async (query: string) => {
      const before = t.database.queryCount()
      const data = (await feeds(creator, query)).json().data
      return { queries: t.database.queryCount() - before, data }
    }
    const page = await statements('?limit=2')
    expect(page.queries).toBe(1)
    expect(page.data).toMatchObject({ total: 4, pages: 2 })
    expect(page.data.data).toHaveLength(2)
    expect(Object.keys(page.data.data[0])).not.toContain('pageTotal')
    const past = await statements('?limit=2&page=9')
    expect(past.queries).toBeLessThanOrEqual(2)
    expect(past.data).toMatchObject({ total: 4, data: [] })
  })

  it('dismissing one or all hides entries for that viewer only', async () => {
    const entry = (await feeds(stranger)).json().data.data.find((f: { data: string }) => f.data === publicJob)
    const res = await t.req({ method: 'PUT', url: `/v1/feeds/${entry._id}/dismiss`, token: stranger.token })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data).toMatchObject({ _id: entry._id, closed: true })
    expect(typesOf((await feeds(stranger)).json().data, publicJob)).toEqual([])
    expect(
      (await t.req({ method: 'GET', url: `/v1/feeds/${entry._id}`, token: stranger.token })).json().data
        .closed,
    ).toBe(true)
    // the creator still sees it
    expect(typesOf((await feeds(creator)).json().data, publicJob)).toEqual(['collection_created'])

    const all = await t.req({ method: 'PUT', url: '/v1/feeds/dismiss/all', token: talent.token })
    expect(all.statusCode).toBe(200)
    expect((await feeds(talent)).json().data.total).toBe(0)
    expect((await feeds(creator)).json().data.total).toBe(4)
    // entries after the dismissal show again
    t.clock.advance(1000)
    await postJob(creator, 'Later job', false)
    expect((await feeds(talent)).json().data.total).toBe(1)

    const unknown = await t.req({
      method: 'PUT',
      url: '/v1/feeds/6b048391bce238a5cbe00a99/dismiss',
      token: talent.token,
    })
    expect(unknown.statusCode).toBe(404)
    expect((await t.req({ method: 'PUT', url: '/v1/feeds/dismiss/all' })).statusCode).toBe(401)
  })
})
