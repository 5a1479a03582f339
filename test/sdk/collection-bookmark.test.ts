// `sdk.collection` and `sdk.bookmark` against the real service over a socket (#26–#30, bookmarks).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  expectError,
  expectOk,
  expectShape,
  type SdkContext,
  type SdkUser,
  signUp,
  startSdk,
  UNKNOWN_ID,
} from './helpers.ts'
import { Bookmark, Collection, CollectionUpdate, Empty, FindBookmarks, FindCollections } from './shapes.ts'

let ctx: SdkContext
let alice: SdkUser
let bob: SdkUser
/** Alice's public collection. */
let job: { _id: string }
/** Bob's private collection. */
let secret: { _id: string }
const WORD = `zephyr${Date.now().toString(36)}`

beforeAll(async () => {
  ctx = await startSdk()
  alice = await signUp(ctx, { firstName: 'Alice' })
  bob = await signUp(ctx, { firstName: 'Bob' })
  // The fixtures use the API contract's string paymentFee, so the tests below do not depend on
  // the SDK's numeric form, which collection.create tests on its own.
  job = expectOk(await create(alice, { paymentFee: '150' as never }))
  secret = expectOk(
    await create(bob, { isPrivate: true, name: `Private ${WORD} plan`, paymentFee: '10' as never }),
  )
})
afterAll(() => ctx?.t.close())

const inDays = (days: number) =>
  new Date(ctx.t.clock.now().getTime() + days * 86_400_000).toISOString().slice(0, 10)

const create = (u: SdkUser, extra: Record<string, unknown> = {}) =>
  ctx.sdk.collection.create(u.token, {
    type: 'job',
    name: `Audit the ${WORD} contracts`,
    description: 'Review two Solidity contracts',
    category: 'security',
    isPrivate: false,
    deliveryDate: inDays(10),
    tags: ['Solidity', 'Security'],
    paymentFee: 150,
    ...extra,
  })

describe('collection.create (#26)', () => {
  it('creates a pending collection with the SDK’s numeric paymentFee', async () => {
    const res = await create(alice, { name: 'Numeric fee job' })
    const data = expectOk(res)
    expectShape(Collection, data, 'the created collection')
    expect(data).toMatchObject({
      name: 'Numeric fee job',
      type: 'job',
      category: 'security',
      paymentFee: 150,
      isPrivate: false,
      status: 'pending',
      payoutStatus: 'awaiting',
      feePayoutStatus: 'awaiting',
      platformFeePayoutStatus: 'awaiting',
      isDeleted: false,
      totalChildCollectionsCount: 0,
      totalChildCollectionEscrowCount: 0,
      tagsData: ['Solidity', 'Security'],
      deliveryDate: `${inDays(10)}T00:00:00.000Z`,
    })
    expect(data.creator._id).toBe(alice.id)
    expect(data.tags.map((t: { key: string }) => t.key).sort()).toEqual(['security', 'solidity'])
    expect(expectOk(await create(alice, { paymentFee: 99.5, name: 'Other' })).paymentFee).toBe(99.5)
    // the API contract's string form is accepted too
    expect(expectOk(await create(alice, { paymentFee: '99.50' as never, name: 'Other' })).paymentFee).toBe(
      99.5,
    )
    expectError(await create(alice, { name: undefined }), 400, 'VALIDATION_ERROR')
    expectError(await create(alice, { paymentFee: -5 }), 400, 'VALIDATION_ERROR')
    expectError(await create(alice, { deliveryDate: 'tomorrow' }), 400, 'VALIDATION_ERROR')
    expectError(await create({ ...alice, token: '' }), 401, 'UNAUTHENTICATED')
  })
})

describe('collection.getAll (#27)', () => {
  it('lists what the caller may see, with the SDK’s filters', async () => {
    const res = await ctx.sdk.collection.getAll(alice.token, { search: WORD, page: '1', limit: '10' })
    const data = expectOk(res)
    expectShape(FindCollections, data, 'the collection list')
    const ids = data.data.map((c: { _id: string }) => c._id)
    expect(ids).toContain(job._id)
    expect(ids).not.toContain(secret._id)
    expect(data).toMatchObject({ page: 1, limit: 10 })
    expect(data.data.find((c: { _id: string }) => c._id === job._id)).toMatchObject({
      isBookmarked: false,
      bookmarkId: '',
    })
    // the owner sees their private one
    const own = expectOk(await ctx.sdk.collection.getAll(bob.token, { search: WORD, isPrivate: true }))
    expect(own.data.map((c: { _id: string }) => c._id)).toEqual([secret._id])
    const priced = expectOk(await ctx.sdk.collection.getAll(alice.token, { search: WORD, price: '100-200' }))
    expect(priced.data.map((c: { _id: string }) => c._id)).toEqual([job._id])
    expectError(await ctx.sdk.collection.getAll(alice.token, { limit: '500' }), 400, 'VALIDATION_ERROR')
    expectError(await ctx.sdk.collection.getAll(''), 401, 'UNAUTHENTICATED')
  })
})

describe('collection.getById (#30)', () => {
  it('answers one collection; a hidden or unknown one is 404', async () => {
    const res = await ctx.sdk.collection.getById(bob.token, job._id)
    const data = expectOk(res)
    expectShape(Collection, data, 'the collection')
    expect(data).toMatchObject({ _id: job._id, paymentFee: 150 })
    expectError(await ctx.sdk.collection.getById(alice.token, secret._id), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.collection.getById(alice.token, UNKNOWN_ID), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.collection.getById(alice.token, 'not-an-id'), 400, 'VALIDATION_ERROR')
    expectError(await ctx.sdk.collection.getById('', job._id), 401, 'UNAUTHENTICATED')
  })
})

describe('collection.updateCollection (#29)', () => {
  it('lets the creator update and answers the older shape', async () => {
    const res = await ctx.sdk.collection.updateCollection(alice.token, job._id, {
      name: `Audit the ${WORD} vaults`,
      description: 'Review three Solidity contracts',
      paymentFee: 200,
    })
    const data = expectOk(res)
    expect(res.message).toBe('Accepted')
    expectShape(CollectionUpdate, data, 'the updated collection')
    expect(data).toMatchObject({
      _id: job._id,
      name: `Audit the ${WORD} vaults`,
      description: 'Review three Solidity contracts',
      paymentFee: '200.00',
      category: 'security',
    })
    expect(expectOk(await ctx.sdk.collection.getById(alice.token, job._id)).paymentFee).toBe(200)
    expectError(
      await ctx.sdk.collection.updateCollection(bob.token, job._id, { name: 'Mine now', description: 'x' }),
      403,
      'FORBIDDEN',
    )
    expectError(
      await ctx.sdk.collection.updateCollection(alice.token, secret._id, { name: 'x', description: 'x' }),
      404,
      'NOT_FOUND',
    )
    expectError(
      await ctx.sdk.collection.updateCollection(alice.token, job._id, { name: '', description: 'x' }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await ctx.sdk.collection.updateCollection('', job._id, { name: 'x', description: 'x' }),
      401,
      'UNAUTHENTICATED',
    )
  })
})

describe('bookmarks', () => {
  let bookmarkId: string

  it('bookmark.create bookmarks a visible collection, once', async () => {
    const res = await ctx.sdk.bookmark.create(alice.token, { reference: job._id, type: 'collection' })
    const data = expectOk(res)
    expectShape(Bookmark, data, 'the bookmark')
    expect(data).toMatchObject({ owner: alice.id, type: 'collection', reference: job._id })
    bookmarkId = data._id
    expect(
      expectOk(await ctx.sdk.bookmark.create(alice.token, { reference: job._id, type: 'collection' }))._id,
    ).toBe(bookmarkId)
    expectError(
      await ctx.sdk.bookmark.create(alice.token, { reference: secret._id, type: 'collection' }),
      404,
      'NOT_FOUND',
    )
    expectError(
      await ctx.sdk.bookmark.create(alice.token, { reference: UNKNOWN_ID, type: 'collection' }),
      404,
      'NOT_FOUND',
    )
    expectError(
      await ctx.sdk.bookmark.create(alice.token, { reference: job._id, type: 'planet' as never }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await ctx.sdk.bookmark.create('', { reference: job._id, type: 'collection' }),
      401,
      'UNAUTHENTICATED',
    )
    const listed = expectOk(await ctx.sdk.collection.getAll(alice.token, { search: WORD }))
    expect(listed.data.find((c: { _id: string }) => c._id === job._id)).toMatchObject({
      isBookmarked: true,
      bookmarkId,
    })
  })

  it('bookmark.getAll lists the caller’s bookmarks', async () => {
    const res = await ctx.sdk.bookmark.getAll(alice.token, { type: 'collection', page: '1', limit: '5' })
    const data = expectOk(res)
    expectShape(FindBookmarks, data, 'the bookmark list')
    expect(data).toMatchObject({ total: 1, page: 1, pages: 1, limit: 5 })
    expect(data.data[0]).toMatchObject({ _id: bookmarkId, reference: job._id })
    expect(expectOk(await ctx.sdk.bookmark.getAll(bob.token))).toMatchObject({ total: 0, data: [] })
    expectError(await ctx.sdk.bookmark.getAll(''), 401, 'UNAUTHENTICATED')
  })

  it('bookmark.getById answers one of the caller’s bookmarks', async () => {
    const res = await ctx.sdk.bookmark.getById(alice.token, bookmarkId)
    const data = expectOk(res)
    expectShape(Bookmark, data, 'the bookmark')
    expect(data).toMatchObject({ _id: bookmarkId, owner: alice.id, type: 'collection', reference: job._id })
    expectError(await ctx.sdk.bookmark.getById(bob.token, bookmarkId), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.bookmark.getById(alice.token, UNKNOWN_ID), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.bookmark.getById(alice.token, 'not-an-id'), 400, 'VALIDATION_ERROR')
    expectError(await ctx.sdk.bookmark.getById('', bookmarkId), 401, 'UNAUTHENTICATED')
  })

  it('bookmark.delete removes one of the caller’s bookmarks', async () => {
    expectError(await ctx.sdk.bookmark.delete(bob.token, bookmarkId), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.bookmark.delete('', bookmarkId), 401, 'UNAUTHENTICATED')
    const res = await ctx.sdk.bookmark.delete(alice.token, bookmarkId)
    expectShape(Empty, expectOk(res), 'delete data')
    expectError(await ctx.sdk.bookmark.delete(alice.token, bookmarkId), 404, 'NOT_FOUND')
    expect(expectOk(await ctx.sdk.bookmark.getAll(alice.token))).toMatchObject({ total: 0, data: [] })
  })
})

describe('collection.deleteACollection (#28)', () => {
  it('lets the creator delete; others get 403 or 404', async () => {
    expectError(await ctx.sdk.collection.deleteACollection(bob.token, job._id), 403, 'FORBIDDEN')
    expectError(await ctx.sdk.collection.deleteACollection(alice.token, secret._id), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.collection.deleteACollection('', job._id), 401, 'UNAUTHENTICATED')
    const res = await ctx.sdk.collection.deleteACollection(alice.token, job._id)
    expectShape(Empty, expectOk(res), 'delete data')
    expectError(await ctx.sdk.collection.getById(alice.token, job._id), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.collection.deleteACollection(alice.token, job._id), 404, 'NOT_FOUND')
    const listed = expectOk(await ctx.sdk.collection.getAll(alice.token, { search: WORD }))
    expect(listed.data.map((c: { _id: string }) => c._id)).not.toContain(job._id)
  })
})
