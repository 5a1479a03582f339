// Bookmarks of collections and users: add (idempotent), list with the referenced summaries, remove.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import {
  anyId,
  createCollection,
  createMember,
  expectError,
  fullForm,
  isoTimestamp,
  type Member,
  summaryOf,
} from './helpers.ts'

let t: TestApp
let alice: Member
let bob: Member
beforeAll(async () => {
  t = await createTestApp()
  alice = await createMember(t, { firstName: 'Alice' })
  bob = await createMember(t, { firstName: 'Bob' })
})
afterAll(() => t.close())

const add = (token: string | undefined, payload: unknown) =>
  t.req({ method: 'POST', url: '/v1/bookmark', payload: payload as object, ...(token ? { token } : {}) })
const listOf = (token: string | undefined, query = '') =>
  t.req({ method: 'GET', url: `/v1/bookmark${query ? `?${query}` : ''}`, ...(token ? { token } : {}) })
const remove = (token: string | undefined, id: string) =>
  t.req({ method: 'DELETE', url: `/v1/bookmark/${id}`, ...(token ? { token } : {}) })

describe('POST /v1/bookmark', () => {
  it('bookmarks a visible collection and answers the bookmark; adding again returns the same one', async () => {
    const col = await createCollection(t, bob.token)
    const res = await add(alice.token, { type: 'collection', reference: col._id })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      status: 'success',
      message: expect.any(String),
      data: {
        _id: anyId,
        owner: alice.id,
        type: 'collection',
        reference: col._id,
        createdAt: isoTimestamp,
        updatedAt: isoTimestamp,
        __v: 0,
      },
    })
    const again = await add(alice.token, { type: 'collection', reference: col._id })
    expect(again.statusCode).toBe(200)
    expect(again.json().data).toEqual(res.json().data)
    const rows = await t.database.db
      .selectFrom('bookmarks')
      .select('id')
      .where('reference', '=', col._id)
      .execute()
    expect(rows).toHaveLength(1)
  })

  it('bookmarks a user', async () => {
    const res = await add(alice.token, { type: 'user', reference: bob.id })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toMatchObject({ type: 'user', reference: bob.id, owner: alice.id })
  })

  it('refuses unknown, deleted and hidden references with 404', async () => {
    expectError(await add(alice.token, { type: 'collection', reference: 'a'.repeat(24) }), 404, 'NOT_FOUND')
    expectError(await add(alice.token, { type: 'user', reference: 'a'.repeat(24) }), 404, 'NOT_FOUND')
    const priv = await createCollection(t, bob.token, { isPrivate: true })
    expectError(await add(alice.token, { type: 'collection', reference: priv._id }), 404, 'NOT_FOUND')
    const gone = await createCollection(t, bob.token)
    await t.req({ method: 'DELETE', url: `/v1/collection/${gone._id}`, token: bob.token })
    expectError(await add(alice.token, { type: 'collection', reference: gone._id }), 404, 'NOT_FOUND')
    const hidden = await createMember(t, { isPrivate: true })
    expectError(await add(alice.token, { type: 'user', reference: hidden.id }), 404, 'NOT_FOUND')
    // a collection id is not a user id
    const col = await createCollection(t, bob.token)
    expectError(await add(alice.token, { type: 'user', reference: col._id }), 404, 'NOT_FOUND')
  })

  it.each([
    ['a bad type', { type: 'post', reference: 'a'.repeat(24) }],
    ['a bad reference', { type: 'user', reference: 'x' }],
    ['no reference', { type: 'user' }],
    ['an unknown field', { type: 'user', reference: 'a'.repeat(24), note: 'x' }],
  ])('refuses %s with 400', async (_label, body) => {
    expectError(await add(alice.token, body), 400, 'VALIDATION_ERROR')
  })

  it('needs a token (401)', async () => {
    expectError(await add(undefined, { type: 'user', reference: bob.id }), 401, 'UNAUTHENTICATED')
  })
})

describe('GET /v1/bookmark', () => {
  it('lists the caller’s bookmarks newest first with the referenced summaries, paginated', async () => {
    const dave = await createMember(t, { firstName: 'Dave' })
    const erin = await createMember(t, { firstName: 'Erin' })
    const col = await createCollection(t, bob.token, { name: 'Bookmarked job', tags: ['Vue'] })
    t.clock.advance(1000)
    const b1 = (await add(dave.token, { type: 'collection', reference: col._id })).json().data
    t.clock.advance(1000)
    const b2 = (await add(dave.token, { type: 'user', reference: erin.id })).json().data
    const res = await listOf(dave.token)
    expect(res.statusCode).toBe(200)
    const bookmarked = fullForm(bob, {
      _id: col._id,
      name: 'Bookmarked job',
      tagsData: ['Vue'],
      tags: col.tags,
    })
    expect(res.json()).toEqual({
      status: 'success',
      message: expect.any(String),
      data: {
        data: [
          { ...b2, user: summaryOf(erin) },
          {
            ...b1,
            collection: bookmarked,
            // the SDK's name for the same collection
            data: bookmarked,
          },
        ],
        total: 2,
        pages: 1,
        page: 1,
        limit: 12,
      },
    })
    expect((await listOf(dave.token, 'type=user')).json().data).toMatchObject({
      total: 1,
      data: [{ _id: b2._id }],
    })
    expect((await listOf(dave.token, 'limit=1&page=2')).json().data).toMatchObject({
      total: 2,
      pages: 2,
      page: 2,
      limit: 1,
      data: [{ _id: b1._id }],
    })
    // another user's list does not show them
    expect((await listOf(erin.token)).json().data).toEqual({
      data: [],
      total: 0,
      pages: 0,
      page: 1,
      limit: 12,
    })
  })

  it('a referenced collection that turns private shows as null; a deleted one drops its bookmarks', async () => {
    const frank = await createMember(t, { firstName: 'Frank' })
    const col = await createCollection(t, bob.token)
    const other = await createCollection(t, bob.token)
    await add(frank.token, { type: 'collection', reference: col._id })
    await add(frank.token, { type: 'collection', reference: other._id })
    await t.req({
      method: 'PATCH',
      url: `/v1/collection/${col._id}`,
      token: bob.token,
      payload: { isPrivate: true },
    })
    await t.req({ method: 'DELETE', url: `/v1/collection/${other._id}`, token: bob.token })
    const data = (await listOf(frank.token)).json().data
    expect(data.total).toBe(1)
    expect(data.data[0]).toMatchObject({ reference: col._id, collection: null })
  })

  it.each(['limit=0', 'limit=101', 'page=0', 'type=post', 'x=1'])('refuses %s with 400', async (q) => {
    expectError(await listOf(alice.token, q), 400, 'VALIDATION_ERROR')
  })

  it('needs a token (401)', async () => {
    expectError(await listOf(undefined), 401, 'UNAUTHENTICATED')
  })
})

describe('DELETE /v1/bookmark/{id}', () => {
  it('removes the caller’s own bookmark; someone else’s or an unknown one is 404', async () => {
    const col = await createCollection(t, alice.token)
    const mine = (await add(bob.token, { type: 'collection', reference: col._id })).json().data
    expectError(await remove(alice.token, mine._id), 404, 'NOT_FOUND')
    expectError(await remove(undefined, mine._id), 401, 'UNAUTHENTICATED')
    const res = await remove(bob.token, mine._id)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'success', message: expect.any(String), data: {} })
    expectError(await remove(bob.token, mine._id), 404, 'NOT_FOUND')
    expectError(await remove(bob.token, 'nope'), 400, 'VALIDATION_ERROR')
    const list = (await t.req({ method: 'GET', url: `/v1/collection/${col._id}`, token: bob.token })).json()
    expect(list.status).toBe('success')
    const listed = (
      await t.req({ method: 'GET', url: `/v1/collection?creatorId=${alice.id}`, token: bob.token })
    ).json().data.data
    expect(listed.find((x: any) => x._id === col._id)).toMatchObject({ isBookmarked: false, bookmarkId: '' })
  })
})
