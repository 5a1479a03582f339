// POST /v1/collection takes three statements without tags or files (the type's lookup is kept by
// the process once made): the row, the event, and the answer read in one statement (the
// collection, its children, its creator's summary and its paymentWebHook); four with tags (the
// tags found or created, and their entry counts moved by the event's statement). GET
// /v1/collection/{id} reads that same one statement when the form is not cached (two with
// children: their children's ids). PATCH /v1/collection/{id} with new tags takes seven.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createCollection, createMember, type Member, summaryOf } from './helpers.ts'

let t: TestApp
let alice: Member
let bob: Member

beforeAll(async () => {
  t = await createTestApp()
  alice = await createMember(t, { firstName: 'Alice' })
  bob = await createMember(t, { firstName: 'Bob' })
  // Each session once, so that the counts below are of the requests alone.
  await createCollection(t, alice.token, { name: 'Warm-up' })
  await t.req({ method: 'GET', url: '/v1/collection', token: bob.token })
})
afterAll(async () => {
  await t?.close()
})

async function counted(method: 'GET' | 'POST' | 'PATCH', url: string, token: string, payload?: object) {
  const before = t.database.queryCount()
  const res = await t.req({ method, url, token, ...(payload ? { payload } : {}) })
  const queries = t.database.queryCount() - before
  expect(res.statusCode, res.body).toBe(200)
  return { queries, data: res.json().data }
}

describe('creating a collection', () => {
  it('takes three statements and answers the form GET answers', async () => {
    const made = await counted('POST', '/v1/collection', alice.token, {
      type: 'job',
      name: 'Four statements',
      description: 'Counted',
      paymentFee: 120,
      paymentWebHook: 'http://localhost:9/hook',
    })
    // The webhook endpoint adds its row (the collection is new: no endpoint of it to look for).
    expect(made.queries).toBe(4)
    expect(made.data).toMatchObject({ paymentWebHook: 'http://localhost:9/hook', creator: summaryOf(alice) })
    const plain = await counted('POST', '/v1/collection', alice.token, {
      type: 'job',
      name: 'Plain',
      description: 'Counted',
    })
    expect(plain.queries).toBe(3)
    expect(plain.data).not.toHaveProperty('paymentWebHook')
    const tagged = await counted('POST', '/v1/collection', alice.token, {
      type: 'job',
      name: 'Tagged on creation',
      description: 'Counted',
      tags: ['Created Tag One', 'Created Tag Two'],
    })
    expect(tagged.queries).toBe(4)
    expect(tagged.data.tags.map((g: { name: string }) => g.name)).toEqual([
      'Created Tag One',
      'Created Tag Two',
    ])
    const counts = await t.database.db
      .selectFrom('tags')
      .select(['key', 'entryCount'])
      .where('key', 'in', ['created-tag-one', 'created-tag-two'])
      .orderBy('key')
      .execute()
    expect(counts).toEqual([
      { key: 'created-tag-one', entryCount: 1 },
      { key: 'created-tag-two', entryCount: 1 },
    ])
    const event = await t.database.db
      .selectFrom('events')
      .select(['type', 'actorId', 'isPublic'])
      .where('collectionId', '=', tagged.data._id)
      .execute()
    expect(event).toEqual([{ type: 'collection.created', actorId: alice.id, isPublic: true }])
    // The creator's read answers the same form (less the secret shown once).
    const { paymentWebHookSecret: _, ...form } = made.data
    t.clock.advance(1)
    const read = await counted('GET', `/v1/collection/${made.data._id}`, alice.token)
    expect(read.data).toEqual(form)
  })

  it('reads one collection in one statement when it is not cached, the hook for its creator only', async () => {
    const parent = await createCollection(t, alice.token, {
      name: 'Parent',
      paymentWebHook: 'http://localhost:9/parent',
    })
    expect((await counted('GET', `/v1/collection/${parent._id}`, bob.token)).queries).toBe(1)
    const child = await createCollection(t, alice.token, { name: 'Child', parent: parent._id })
    // With children, their own children's ids are a second statement.
    const asBob = await counted('GET', `/v1/collection/${parent._id}`, bob.token)
    expect(asBob.queries).toBe(2)
    expect(asBob.data).not.toHaveProperty('paymentWebHook')
    expect(asBob.data.creator).toEqual(summaryOf(alice))
    expect(asBob.data.collections.map((c: { _id: string }) => c._id)).toEqual([child._id])
    expect(asBob.data.collections[0].creator).toEqual(summaryOf(alice))
    const asAlice = await counted('GET', `/v1/collection/${parent._id}`, alice.token)
    expect(asAlice.queries).toBeLessThanOrEqual(2)
    expect(asAlice.data.paymentWebHook).toBe('http://localhost:9/parent')
  })
})

describe('updating a collection', () => {
  it('takes seven statements with new tags, and answers them in the order given', async () => {
    const job = await createCollection(t, alice.token, { name: 'Tagged', tags: ['First Tag', 'Second Tag'] })
    const patched = await counted('PATCH', `/v1/collection/${job._id}`, alice.token, {
      description: 'Retagged',
      tags: ['Third Tag', 'First Tag'],
    })
    // The row locked, the tags found or created, their counts moved, the row updated (answering
    // itself), then its creator, children and paymentWebHook for the answer (a tag's name, key,
    // colour and type never change: the process keeps them once read or created).
    expect(patched.queries).toBe(7)
    expect(patched.data.description).toBe('Retagged')
    expect(patched.data.skillData).toEqual(['Third Tag', 'First Tag'])
    const counts = await t.database.db
      .selectFrom('tags')
      .select(['key', 'entryCount'])
      .where('key', 'in', ['first-tag', 'second-tag', 'third-tag'])
      .orderBy('key')
      .execute()
    expect(counts).toEqual([
      { key: 'first-tag', entryCount: 1 },
      { key: 'second-tag', entryCount: 0 },
      { key: 'third-tag', entryCount: 1 },
    ])
  })

  it('is read in one statement with its tags, whose labels the process keeps', async () => {
    const job = await createCollection(t, alice.token, { name: 'Labelled', tags: ['Label One', 'Label Two'] })
    t.clock.advance(1)
    const read = await counted('GET', `/v1/collection/${job._id}`, bob.token)
    expect(read.queries).toBe(1)
    expect(read.data.tags).toEqual([
      expect.objectContaining({ name: 'Label One', key: 'label-one' }),
      expect.objectContaining({ name: 'Label Two', key: 'label-two' }),
    ])
  })

  it('keeps the search text of its tags when only the name changes', async () => {
    const job = await createCollection(t, alice.token, { name: 'Searchable', tags: ['Zebra Quokka'] })
    const renamed = await counted('PATCH', `/v1/collection/${job._id}`, alice.token, { name: 'Renamed job' })
    expect(renamed.data.name).toBe('Renamed job')
    const row = await t.database.db
      .selectFrom('collections')
      .select('searchText')
      .where('id', '=', job._id)
      .executeTakeFirstOrThrow()
    expect(row.searchText).toContain('zebra')
    expect(row.searchText).toContain('renamed')
  })
})
