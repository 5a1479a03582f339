// `sdk.collection.getTypes`/`getACollectionType` and `sdk.bookmark` with every BookmarkType,
// against the real service over a socket (`sdk.auth.validateReferral`: test/social/referrals).
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
import { Bookmark, CollectionType, FindBookmarks, FindCollectionTypes } from './shapes.ts'

let ctx: SdkContext
let ada: SdkUser
let bo: SdkUser
let jobId: string
beforeAll(async () => {
  ctx = await startSdk()
  ada = await signUp(ctx, { firstName: 'Ada' })
  bo = await signUp(ctx, { firstName: 'Bo' })
  jobId = expectOk(
    await ctx.sdk.collection.create(ada.token, {
      type: 'gig',
      name: 'Logo',
      description: 'A logo',
      isPrivate: false,
      paymentFee: 50,
    } as never),
  )._id
})
afterAll(() => ctx?.t.close())

describe('collection types', () => {
  it('collection.getTypes lists them with the SDK’s filter and paging', async () => {
    const all = expectOk(await ctx.sdk.collection.getTypes(ada.token))
    expectShape(FindCollectionTypes, all, 'the type list')
    expect(all.data.map((x: { value: string }) => x.value)).toContain('job')
    const page = expectOk(await ctx.sdk.collection.getTypes(ada.token, { page: '2', limit: '2' }))
    expect(page).toMatchObject({ page: 2, limit: 2, total: all.total })
    expectError(await ctx.sdk.collection.getTypes(ada.token, { limit: '0' }), 400, 'VALIDATION_ERROR')
    expectError(await ctx.sdk.collection.getTypes(''), 401, 'UNAUTHENTICATED')
  })

  it('collection.getACollectionType answers one (the SDK repeats the id as ?id=)', async () => {
    const [first] = expectOk(await ctx.sdk.collection.getTypes(ada.token)).data
    const one = expectOk(await ctx.sdk.collection.getACollectionType(ada.token, first._id))
    expectShape(CollectionType, one, 'the type')
    expect(one).toEqual(first)
    expectError(await ctx.sdk.collection.getACollectionType(ada.token, UNKNOWN_ID), 404, 'NOT_FOUND')
  })

  it('collection.create refuses a type that is not listed', async () => {
    expectError(
      await ctx.sdk.collection.create(ada.token, { type: 'planet', name: 'x', description: 'y' } as never),
      400,
      'VALIDATION_ERROR',
    )
  })
})

describe('bookmarks of every type', () => {
  it('bookmark.create takes feed entries, users and invites; getAll filters by type', async () => {
    // Ada's public entry (the SDK's feed.getAll asks for the caller's own entries only)
    const entry = expectOk(await ctx.sdk.feed.getAll(ada.token, { type: 'collection_created' })).data.find(
      (f: { data: string }) => f.data === jobId,
    )
    const feed = expectOk(await ctx.sdk.bookmark.create(bo.token, { reference: entry._id, type: 'feed' }))
    expectShape(Bookmark, feed, 'the feed bookmark')
    const user = expectOk(await ctx.sdk.bookmark.create(bo.token, { reference: ada.id, type: 'user' }))
    expectShape(Bookmark, user, 'the user bookmark')
    const invite = expectOk(
      await ctx.sdk.invite.sendInvite(ada.token, { recipient: bo.id, collection: jobId }),
    )
    const inv = expectOk(await ctx.sdk.bookmark.create(bo.token, { reference: invite._id, type: 'invite' }))
    expect(inv).toMatchObject({ type: 'invite', reference: invite._id, owner: bo.id })

    const feeds = expectOk(await ctx.sdk.bookmark.getAll(bo.token, { type: 'feed' }))
    expectShape(FindBookmarks, feeds, 'the list')
    expect(feeds).toMatchObject({ total: 1, data: [{ _id: feed._id, feed: { _id: entry._id } }] })
    const one = expectOk(await ctx.sdk.bookmark.getById(bo.token, inv._id))
    expect(one.invite).toMatchObject({ _id: invite._id, status: 'pending' })
    expect(expectOk(await ctx.sdk.bookmark.getAll(bo.token)).total).toBe(3)
    // private to their owner
    expect(expectOk(await ctx.sdk.bookmark.getAll(ada.token)).total).toBe(0)
    expectError(await ctx.sdk.bookmark.getById(ada.token, inv._id), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.bookmark.delete(ada.token, feed._id), 404, 'NOT_FOUND')
    expectOk(await ctx.sdk.bookmark.delete(bo.token, feed._id))
    expect(expectOk(await ctx.sdk.bookmark.getAll(bo.token, { type: 'feed' })).total).toBe(0)
  })

  it('bookmark.create answers 404 for what the caller cannot see', async () => {
    const carl = await signUp(ctx, { firstName: 'Carl' })
    const invites = expectOk(await ctx.sdk.invite.getAll(bo.token)).data
    expectError(
      await ctx.sdk.bookmark.create(carl.token, { reference: invites[0]._id, type: 'invite' }),
      404,
      'NOT_FOUND',
    )
    expectError(
      await ctx.sdk.bookmark.create(carl.token, { reference: UNKNOWN_ID, type: 'feed' }),
      404,
      'NOT_FOUND',
    )
  })
})
