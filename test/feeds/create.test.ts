// POST /v1/feeds/: a user's own entry in the activity stream — who sees it, its type filter, its
// validation, and that it needs a token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../src/platform/crypto/ids.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let alice: TestUser
let bob: TestUser
let carol: TestUser
beforeAll(async () => {
  t = await createTestApp()
  alice = await createUser(t, { firstName: 'Alice' })
  bob = await createUser(t, { firstName: 'Bob' })
  carol = await createUser(t, { firstName: 'Carol' })
})
afterAll(() => t?.close())

const create = (user: TestUser | undefined, payload: object) =>
  t.req({ method: 'POST', url: '/v1/feeds/', payload, ...(user ? { token: user.token } : {}) })
const list = (user: TestUser, query = '') =>
  t.req({ method: 'GET', url: `/v1/feeds/${query}`, token: user.token })
const ids = (res: { json(): any }) => res.json().data.data.map((f: { _id: string }) => f._id)

const entry = {
  title: 'Portfolio updated',
  description: 'Three new case studies are up.',
  type: 'collection_update',
  data: 'portfolio',
  isPublic: true,
}

describe('POST /v1/feeds/', () => {
  it('posts a public entry everyone sees, with the caller as creator and owner', async () => {
    const res = await create(alice, entry)
    expect(res.statusCode, res.body).toBe(200)
    const feed = res.json().data
    expect(res.json().message).toBe('Feed created')
    expect(feed).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      creator: alice.id,
      owner: alice.id,
      owners: [alice.id],
      data: 'portfolio',
      title: 'Portfolio updated',
      description: 'Three new case studies are up.',
      type: 'collection_update',
      isPublic: true,
      closed: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    expect(ids(await list(carol))).toContain(feed._id)
    expect(
      (await t.req({ method: 'GET', url: `/v1/feeds/${feed._id}`, token: carol.token })).json().data,
    ).toEqual(feed)
    // the type filter finds it under its own type only
    expect(ids(await list(carol, '?type=collection_update'))).toContain(feed._id)
    expect(ids(await list(carol, '?type=collection_created'))).not.toContain(feed._id)
  })

  it('shows a private entry to its owners and the caller only', async () => {
    const res = await create(alice, { ...entry, title: 'Just for Bob', isPublic: false, owners: bob.id })
    expect(res.statusCode, res.body).toBe(200)
    const feed = res.json().data
    expect(feed).toMatchObject({ creator: alice.id, owner: bob.id, owners: [bob.id], isPublic: false })
    expect(ids(await list(bob, '?isOwner=true'))).toContain(feed._id)
    expect(ids(await list(alice, '?isOwner=true'))).toContain(feed._id)
    expect(ids(await list(carol))).not.toContain(feed._id)
    expectError(
      await t.req({ method: 'GET', url: `/v1/feeds/${feed._id}`, token: carol.token }),
      404,
      'NOT_FOUND',
    )
    // a list of owners, repeated ids counted once
    const many = (
      await create(alice, { ...entry, isPublic: false, owners: [bob.id, carol.id, bob.id] })
    ).json().data
    expect(many.owners).toEqual([bob.id, carol.id])
  })

  it('refuses bad input: blank text, an unknown type or owner, missing or extra fields', async () => {
    const cases: [object, string][] = [
      [{ ...entry, title: '   ' }, '/title'],
      [{ ...entry, description: '' }, '/description'],
      [{ ...entry, type: 'shout' }, '/type'],
      [{ ...entry, owners: [bob.id, newId()] }, '/owners/1'],
      [{ ...entry, owners: 'nope' }, '/owners'],
      [{ ...entry, owners: Array.from({ length: 21 }, () => bob.id) }, '/owners'],
      [{ title: 'x', description: 'y', type: 'collection_update', data: '' }, ''],
      [{ ...entry, extra: true }, ''],
    ]
    for (const [payload, path] of cases) {
      const res = await create(alice, payload)
      expectError(res, 400, 'VALIDATION_ERROR')
      if (path) expect(JSON.stringify(res.json().data.errors), JSON.stringify(payload)).toContain(path)
    }
  })

  it('needs a live token', async () => {
    expectError(await create(undefined, entry), 401, 'UNAUTHENTICATED')
    const gone = await createUser(t)
    await t.req({ method: 'POST', url: '/v1/account/logout', token: gone.token })
    expectError(await create(gone, entry), 401, 'UNAUTHENTICATED')
  })
})
