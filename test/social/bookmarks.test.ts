// Bookmarks of feed entries and invites beside collections and users: only what the caller may
// see can be bookmarked (404 otherwise), each user's bookmarks are theirs alone, and the list
// carries each target under the field of its type, filtered by `type` and paginated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  anyId,
  createCollection,
  createMember,
  expectError,
  isoTimestamp,
  type Member,
} from '../collections/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
let alice: Member
let bob: Member
let carol: Member
/** Bob's public job (a public feed entry) and private job (an entry only Bob sees). */
let publicJob: { _id: string }
let privateJob: { _id: string }
let publicEntry: string
let privateEntry: string
/** Bob's invite of Carol to the public job. */
let inviteId: string

beforeAll(async () => {
  t = await createTestApp()
  alice = await createMember(t, { firstName: 'Alice' })
  bob = await createMember(t, { firstName: 'Bob' })
  carol = await createMember(t, { firstName: 'Carol' })
  publicJob = await createCollection(t, bob.token, { name: 'Public job' })
  privateJob = await createCollection(t, bob.token, { name: 'Private job', isPrivate: true })
  const feeds = (
    await t.req({ method: 'GET', url: '/v1/feeds/?isOwner=true&limit=100', token: bob.token })
  ).json().data.data
  publicEntry = feeds.find((f: any) => f.data === publicJob._id)._id
  privateEntry = feeds.find((f: any) => f.data === privateJob._id)._id
  const invite = await t.req({
    method: 'POST',
    url: '/v1/invite',
    token: bob.token,
    payload: { collection: publicJob._id, recipient: carol.id },
  })
  expect(invite.statusCode, invite.body).toBe(200)
  inviteId = invite.json().data._id
})
afterAll(() => t.close())

const add = (token: string | undefined, payload: object) =>
  t.req({ method: 'POST', url: '/v1/bookmark', payload, ...(token ? { token } : {}) })
const listOf = (token: string, query = '') =>
  t.req({ method: 'GET', url: `/v1/bookmark${query ? `?${query}` : ''}`, token })
const getOne = (token: string, id: string) => t.req({ method: 'GET', url: `/v1/bookmark/${id}`, token })
const remove = (token: string, id: string) => t.req({ method: 'DELETE', url: `/v1/bookmark/${id}`, token })

describe('feed entries', () => {
  let bookmarkId: string

  it('bookmarks an entry the caller may see, once; the list carries the entry as GET /v1/feeds/:id does', async () => {
    const res = await add(alice.token, { type: 'feed', reference: publicEntry })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data).toEqual({
      _id: anyId,
      owner: alice.id,
      type: 'feed',
      reference: publicEntry,
      createdAt: isoTimestamp,
      updatedAt: isoTimestamp,
      __v: 0,
    })
    bookmarkId = res.json().data._id
    expect((await add(alice.token, { type: 'feed', reference: publicEntry })).json().data._id).toBe(
      bookmarkId,
    )
    const entry = (await t.req({ method: 'GET', url: `/v1/feeds/${publicEntry}`, token: alice.token })).json()
      .data
    const list = (await listOf(alice.token, 'type=feed')).json().data
    expect(list).toEqual({
      data: [{ ...res.json().data, feed: entry }],
      total: 1,
      pages: 1,
      page: 1,
      limit: 12,
    })
    expect((await getOne(alice.token, bookmarkId)).json().data).toEqual({ ...res.json().data, feed: entry })
  })

  it('shows the caller’s dismissal of the entry', async () => {
    await t.req({ method: 'PUT', url: `/v1/feeds/${publicEntry}/dismiss`, token: alice.token })
    expect((await getOne(alice.token, bookmarkId)).json().data.feed).toMatchObject({
      _id: publicEntry,
      closed: true,
    })
  })

  it('refuses an entry the caller may not see, and unknown ids, with 404', async () => {
    expectError(await add(alice.token, { type: 'feed', reference: privateEntry }), 404, 'NOT_FOUND')
    expectError(await add(alice.token, { type: 'feed', reference: 'f'.repeat(24) }), 404, 'NOT_FOUND')
    // a collection id is no feed entry
    expectError(await add(alice.token, { type: 'feed', reference: publicJob._id }), 404, 'NOT_FOUND')
    const own = await add(bob.token, { type: 'feed', reference: privateEntry })
    expect(own.statusCode, own.body).toBe(200)
  })

  it('is private to its owner', async () => {
    expectError(await getOne(bob.token, bookmarkId), 404, 'NOT_FOUND')
    expectError(await remove(bob.token, bookmarkId), 404, 'NOT_FOUND')
    expect((await listOf(bob.token, 'type=feed')).json().data.data.map((b: any) => b.reference)).toEqual([
      privateEntry,
    ])
  })
})

describe('invites', () => {
  it('the sender and the invited talent may bookmark an invite; anyone else gets 404', async () => {
    const invite = (await t.req({ method: 'GET', url: `/v1/invite/${inviteId}`, token: carol.token })).json()
      .data
    for (const who of [bob, carol]) {
      const res = await add(who.token, { type: 'invite', reference: inviteId })
      expect(res.statusCode, res.body).toBe(200)
      const item = (await getOne(who.token, res.json().data._id)).json().data
      expect(item).toEqual({ ...res.json().data, invite })
    }
    expectError(await add(alice.token, { type: 'invite', reference: inviteId }), 404, 'NOT_FOUND')
    expectError(await add(alice.token, { type: 'invite', reference: publicJob._id }), 404, 'NOT_FOUND')
  })

  it('shows the invite as it is now', async () => {
    const declined = await t.req({
      method: 'POST',
      url: `/v1/invite/${inviteId}/decline`,
      token: carol.token,
    })
    expect(declined.statusCode, declined.body).toBe(200)
    const list = (await listOf(carol.token, 'type=invite')).json().data
    expect(list.total).toBe(1)
    expect(list.data[0].invite).toMatchObject({ _id: inviteId, status: 'rejected' })
  })
})

describe('the list', () => {
  it('mixes every type newest first, filters by type, and pages', async () => {
    const dave = await createMember(t, { firstName: 'Dave' })
    const made: { type: string; reference: string }[] = [
      { type: 'collection', reference: publicJob._id },
      { type: 'user', reference: alice.id },
      { type: 'feed', reference: publicEntry },
    ]
    const ids: string[] = []
    for (const b of made) {
      t.clock.advance(1000)
      ids.push((await add(dave.token, b)).json().data._id)
    }
    const all = (await listOf(dave.token)).json().data
    expect(all.total).toBe(3)
    expect(all.data.map((b: any) => b._id)).toEqual([...ids].reverse())
    expect(all.data[0]).toMatchObject({ type: 'feed', feed: { _id: publicEntry } })
    expect(all.data[1]).toMatchObject({ type: 'user', user: { _id: alice.id } })
    expect(all.data[2]).toMatchObject({
      type: 'collection',
      collection: { _id: publicJob._id },
      data: { _id: publicJob._id },
    })
    // only the target of its own type
    expect(Object.keys(all.data[0])).not.toContain('collection')
    const page2 = (await listOf(dave.token, 'limit=2&page=2')).json().data
    expect(page2).toMatchObject({ total: 3, pages: 2, page: 2, limit: 2 })
    expect(page2.data.map((b: any) => b._id)).toEqual([ids[0]])
    for (const type of ['collection', 'user', 'feed', 'invite']) {
      const res = (await listOf(dave.token, `type=${type}`)).json().data
      expect(res.data.every((b: any) => b.type === type)).toBe(true)
    }
    expect((await listOf(dave.token, 'type=invite')).json().data).toEqual({
      data: [],
      total: 0,
      pages: 0,
      page: 1,
      limit: 12,
    })
  })

  it.each(['type=planet', 'limit=0', 'limit=101', 'page=0', 'owner=x'])('refuses %s with 400', async (q) => {
    expectError(await listOf(alice.token, q), 400, 'VALIDATION_ERROR')
  })

  it('refuses a bad type in the body with 400, and no token with 401', async () => {
    expectError(await add(alice.token, { type: 'post', reference: publicEntry }), 400, 'VALIDATION_ERROR')
    expectError(await add(undefined, { type: 'feed', reference: publicEntry }), 401, 'UNAUTHENTICATED')
    expectError(await t.req({ method: 'GET', url: '/v1/bookmark?type=feed' }), 401, 'UNAUTHENTICATED')
  })
})
