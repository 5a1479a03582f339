// Create and get of collections (#26, #30) and child collections (update and delete, and the
// service API the escrow feature uses, are in collection-changes.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import {
  anyId,
  collectionFlows,
  createCollection,
  createMember,
  dateIn,
  expectError,
  fullForm,
  type Member,
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

const { post, get, del, entryCount, escrow } = collectionFlows(() => t)

describe('POST /v1/collection (#26)', () => {
  it('answers 200 with the full Collection form: pending, awaiting, zero counts, creator summary', async () => {
    const res = await post(alice.token, { type: 'job', name: 'A job', description: 'Some work' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'success', message: expect.any(String), data: fullForm(alice) })
  })

  it('stores every optional field; paymentFee is a number; tags are Tag objects; tagsData as submitted', async () => {
    const date = dateIn(10)
    const res = await post(alice.token, {
      type: 'job',
      name: '  Build a dashboard ',
      category: 'design',
      description: 'Charts and tables',
      paymentFee: '1250.50',
      isPrivate: true,
      deliveryDate: date,
      tags: ['React', ' react ', 'Type Script'],
      isParentFunded: true,
      meta: { name: 'dash', nested: { a: [1, 2] } },
    })
    expect(res.statusCode, res.body).toBe(200)
    const data = res.json().data
    expect(data).toEqual(
      fullForm(alice, {
        name: 'Build a dashboard',
        category: 'design',
        description: 'Charts and tables',
        paymentFee: 1250.5,
        isPrivate: true,
        deliveryDate: `${date}T00:00:00.000Z`,
        tagsData: ['React', ' react ', 'Type Script'],
        tags: [
          {
            _id: anyId,
            name: 'React',
            key: 'react',
            color: expect.stringMatching(/^#[0-9a-f]{6}$/),
            type: 'tags',
          },
          {
            _id: anyId,
            name: 'Type Script',
            key: 'type-script',
            color: expect.stringMatching(/^#[0-9a-f]{6}$/),
            type: 'tags',
          },
        ],
        isParentFunded: true,
        meta: { name: 'dash', nested: { a: [1, 2] } },
      }),
    )
    expect(await entryCount('type-script')).toBe(1)
    // the fee is kept exactly as NUMERIC
    const row = await t.database.db
      .selectFrom('collections')
      .select('paymentFee')
      .where('id', '=', data._id)
      .executeTakeFirstOrThrow()
    expect(row.paymentFee).toBe('1250.50')
  })

  it('accepts today as deliveryDate', async () => {
    const c = await createCollection(t, alice.token, { deliveryDate: dateIn(0) })
    expect(c.deliveryDate).toBe(`${dateIn(0)}T00:00:00.000Z`)
  })

  it.each([
    ['no type', { name: 'n', description: 'd' }],
    ['no name', { type: 'job', description: 'd' }],
    ['no description', { type: 'job', name: 'n' }],
    ['blank name', { type: 'job', name: '   ', description: 'd' }],
    ['unknown field', { type: 'job', name: 'n', description: 'd', owner: 'x' }],
    ['bad date format', { type: 'job', name: 'n', description: 'd', deliveryDate: '21/11/2030' }],
    ['impossible date', { type: 'job', name: 'n', description: 'd', deliveryDate: '2030-02-30' }],
    ['past date', { type: 'job', name: 'n', description: 'd', deliveryDate: dateIn(-1) }],
    [
      'paymentFee as a number with 3 decimals',
      { type: 'job', name: 'n', description: 'd', paymentFee: 1.005 },
    ],
    ['paymentFee with 3 decimals', { type: 'job', name: 'n', description: 'd', paymentFee: '1.005' }],
    ['negative paymentFee', { type: 'job', name: 'n', description: 'd', paymentFee: '-5' }],
    ['tags not an array', { type: 'job', name: 'n', description: 'd', tags: 'react' }],
    ['a tag of symbols', { type: 'job', name: 'n', description: 'd', tags: ['!!!'] }],
    [
      'too many tags',
      { type: 'job', name: 'n', description: 'd', tags: Array.from({ length: 31 }, (_, i) => `t${i}`) },
    ],
    ['meta not an object', { type: 'job', name: 'n', description: 'd', meta: 'x' }],
    ['meta over 4 KiB', { type: 'job', name: 'n', description: 'd', meta: { blob: 'x'.repeat(5000) } }],
    ['parent not an id', { type: 'job', name: 'n', description: 'd', parent: 'nope' }],
    ['isPrivate as a string', { type: 'job', name: 'n', description: 'd', isPrivate: 'true' }],
    ['a NUL in the name', { type: 'job', name: 'a\u0000b', description: 'd' }],
    ['a NUL in a tag', { type: 'job', name: 'n', description: 'd', tags: ['a\u0000'] }],
    ['a NUL in meta', { type: 'job', name: 'n', description: 'd', meta: { 'k\u0000': 'v\u0000' } }],
    ['a fee over 12 digits', { type: 'job', name: 'n', description: 'd', paymentFee: '1234567890123' }],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_label, body) => {
    expectError(await post(alice.token, body), 400, 'VALIDATION_ERROR')
  })

  it('refuses malformed JSON with 400', async () => {
    const res = await t.req({
      method: 'POST',
      url: '/v1/collection',
      token: alice.token,
      headers: { 'content-type': 'application/json' },
      payload: '{"type":',
    })
    expectError(res, 400, 'VALIDATION_ERROR')
  })

  it('refuses a request without a token (401)', async () => {
    expectError(await post(undefined, { type: 'job', name: 'n', description: 'd' }), 401, 'UNAUTHENTICATED')
    const bad = await t.req({
      method: 'POST',
      url: '/v1/collection',
      headers: { authorization: 'Bearer nope.nope.nope' },
      payload: { type: 'job', name: 'n', description: 'd' },
    })
    expectError(bad, 401, 'UNAUTHENTICATED')
  })
})

describe('child collections', () => {
  it('creates a child under the caller’s own collection and counts it on the parent', async () => {
    const parent = await createCollection(t, alice.token, { name: 'Parent' })
    const child = await createCollection(t, alice.token, { name: 'Child', parent: parent._id })
    expect(child).toEqual(fullForm(alice, { name: 'Child', parent: parent._id }))
    const res = await get(alice.token, parent._id)
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toEqual(
      fullForm(alice, {
        _id: parent._id,
        name: 'Parent',
        totalChildCollectionsCount: 1,
        collections: [fullForm(alice, { _id: child._id, name: 'Child', parent: parent._id })],
      }),
    )
  })

  it('refuses an unknown parent (404)', async () => {
    expectError(
      await post(alice.token, { type: 'job', name: 'n', description: 'd', parent: 'f'.repeat(24) }),
      404,
      'NOT_FOUND',
    )
  })

  it('refuses someone else’s public parent (403) and hides someone else’s private parent (404)', async () => {
    const pub = await createCollection(t, bob.token)
    const priv = await createCollection(t, bob.token, { isPrivate: true })
    expectError(
      await post(alice.token, { type: 'job', name: 'n', description: 'd', parent: pub._id }),
      403,
      'FORBIDDEN',
    )
    expectError(
      await post(alice.token, { type: 'job', name: 'n', description: 'd', parent: priv._id }),
      404,
      'NOT_FOUND',
    )
  })

  it('refuses a deleted parent (404) and a child as parent (422)', async () => {
    const gone = await createCollection(t, alice.token)
    expect((await del(alice.token, gone._id)).statusCode).toBe(200)
    expectError(
      await post(alice.token, { type: 'job', name: 'n', description: 'd', parent: gone._id }),
      404,
      'NOT_FOUND',
    )
    const parent = await createCollection(t, alice.token)
    const child = await createCollection(t, alice.token, { parent: parent._id })
    expectError(
      await post(alice.token, { type: 'job', name: 'n', description: 'd', parent: child._id }),
      422,
      'COLLECTION_NESTING_TOO_DEEP',
    )
  })
})

describe('GET /v1/collection/{id} (#30)', () => {
  it('shows a public collection to anyone signed in', async () => {
    const c = await createCollection(t, alice.token, { paymentFee: '99.99' })
    const res = await get(bob.token, c._id)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      status: 'success',
      message: expect.any(String),
      data: fullForm(alice, { _id: c._id, paymentFee: 99.99 }),
    })
  })

  it('hides someone else’s private collection (404) but shows it to its creator and its receiver', async () => {
    const carol = await createMember(t, { firstName: 'Carol' })
    const c = await createCollection(t, alice.token, { isPrivate: true })
    expectError(await get(bob.token, c._id), 404, 'NOT_FOUND')
    expect((await get(alice.token, c._id)).statusCode).toBe(200)
    await escrow(c._id, 'waiting', carol.id)
    expect((await get(carol.token, c._id)).statusCode).toBe(200)
    expectError(await get(bob.token, c._id), 404, 'NOT_FOUND')
  })

  it('hides private children of someone else from a viewer of the public parent', async () => {
    const parent = await createCollection(t, alice.token)
    const open = await createCollection(t, alice.token, { parent: parent._id, name: 'open' })
    await createCollection(t, alice.token, { parent: parent._id, name: 'hidden', isPrivate: true })
    const asBob = (await get(bob.token, parent._id)).json().data
    expect(asBob.collections.map((c: any) => c._id)).toEqual([open._id])
    expect(asBob.totalChildCollectionsCount).toBe(2)
    const asAlice = (await get(alice.token, parent._id)).json().data
    expect(asAlice.collections.map((c: any) => c.name)).toEqual(['open', 'hidden'])
  })

  it('answers 404 for unknown and deleted collections, 400 for a malformed id, 401 without a token', async () => {
    expectError(await get(alice.token, 'a'.repeat(24)), 404, 'NOT_FOUND')
    const c = await createCollection(t, alice.token)
    await del(alice.token, c._id)
    expectError(await get(alice.token, c._id), 404, 'NOT_FOUND')
    expectError(await get(alice.token, 'xyz'), 400, 'VALIDATION_ERROR')
    expectError(await get(undefined, c._id), 401, 'UNAUTHENTICATED')
  })
})
