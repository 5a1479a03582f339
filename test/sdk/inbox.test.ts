// What a client app does with a user's inbox through the public SDK, against the real service over
// a socket: `notifications.markOneAsRead` and `markAll`, `chat.getUserMessages`,
// `feed.dismissAFeed` and `dismissAllFeeds`, and `collection.createMany` (deliverables in bulk).
// The SDK has no call that opens a conversation (clients open one with POST /v1/chat or over the
// live socket), so that one step goes through plain fetch. The SDK's `collection.createMany` is
// broken: it posts the bulk body to POST /v1/collection (its COLLECTION path) instead of
// /v1/collection/many, so the test shows that answer and then calls the bulk route directly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  expectError,
  expectOk,
  type SdkContext,
  type SdkUser,
  signUp,
  startSdk,
  UNKNOWN_ID,
} from './helpers.ts'

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
      type: 'job',
      name: 'Landing page',
      description: 'A landing page',
      isPrivate: false,
      paymentFee: 100,
    } as never),
  )._id
  // Bo is invited and accepts: each of them gets notifications, and they share the job
  const invite = expectOk(await ctx.sdk.invite.sendInvite(ada.token, { recipient: bo.id, collection: jobId }))
  expectOk(await ctx.sdk.invite.acceptInvite(bo.token, invite._id))
})
afterAll(() => ctx?.t.close())

const unread = async (u: SdkUser) =>
  expectOk(await ctx.sdk.notifications.getAll(u.token)).notification.filter((n: { read: boolean }) => !n.read)

describe('notifications.markOneAsRead and markAll', () => {
  it('marks one of the caller’s notifications read, then all; another user’s or an unknown id is 404', async () => {
    const before = await unread(bo)
    expect(before.length).toBeGreaterThanOrEqual(1)
    const first = before[0]._id as string
    expectError(await ctx.sdk.notifications.markOneAsRead(ada.token, first), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.notifications.markOneAsRead(bo.token, UNKNOWN_ID), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.notifications.markOneAsRead('', first), 401, 'UNAUTHENTICATED')
    expectOk(await ctx.sdk.notifications.markOneAsRead(bo.token, first))
    const after = await unread(bo)
    expect(after.map((n: { _id: string }) => n._id)).not.toContain(first)
    expect(after.length).toBe(before.length - 1)

    expect((await unread(ada)).length).toBeGreaterThanOrEqual(1)
    expectError(await ctx.sdk.notifications.markAll(''), 401, 'UNAUTHENTICATED')
    expectOk(await ctx.sdk.notifications.markAll(ada.token))
    expect(await unread(ada)).toEqual([])
    // Bo's are his own: Ada marking all of hers left his as they were
    expect((await unread(bo)).length).toBe(after.length)
  })
})

describe('chat.getUserMessages', () => {
  it('lists the caller’s conversations (the job’s, once opened); a stranger sees none of them', async () => {
    const opened = await fetch(`${ctx.baseUrl}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ada.token}` },
      body: JSON.stringify({ collectionId: jobId }),
    })
    expect(opened.status).toBe(200)
    const conversationId = ((await opened.json()) as { data: { _id: string } }).data._id
    for (const u of [ada, bo]) {
      const list = expectOk(await ctx.sdk.chat.getUserMessages(u.token))
      const ids = (Array.isArray(list) ? list : list.data).map((c: { _id: string }) => c._id)
      expect(ids).toContain(conversationId)
    }
    const stranger = await signUp(ctx, { firstName: 'Cy' })
    const none = expectOk(await ctx.sdk.chat.getUserMessages(stranger.token))
    expect(Array.isArray(none) ? none : none.data).toEqual([])
    expectError(await ctx.sdk.chat.getUserMessages(''), 401, 'UNAUTHENTICATED')
  })
})

describe('feed.dismissAFeed and dismissAllFeeds', () => {
  it('hides one entry from the caller’s feed, then all of them; another user’s feed is unchanged', async () => {
    const post = (title: string) =>
      ctx.sdk.feed.create(ada.token, {
        title,
        description: 'News',
        type: 'collection_update',
        data: '',
        isPublic: true,
      })
    const one = expectOk(await post('First news'))._id as string
    const two = expectOk(await post('Second news'))._id as string
    const ids = async (u: SdkUser) =>
      expectOk(await ctx.sdk.feed.getAll(u.token)).data.map((f: { _id: string }) => f._id as string)
    expect(await ids(ada)).toEqual(expect.arrayContaining([one, two]))

    expectError(await ctx.sdk.feed.dismissAFeed(ada.token, UNKNOWN_ID), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.feed.dismissAFeed('', one), 401, 'UNAUTHENTICATED')
    expectOk(await ctx.sdk.feed.dismissAFeed(ada.token, one))
    const left = await ids(ada)
    expect(left).not.toContain(one)
    expect(left).toContain(two)

    expectError(await ctx.sdk.feed.dismissAllFeeds(''), 401, 'UNAUTHENTICATED')
    expectOk(await ctx.sdk.feed.dismissAllFeeds(ada.token))
    expect(await ids(ada)).toEqual([])
    // Bo still sees Ada's public entries he did not dismiss
    expect(expectOk(await ctx.sdk.feed.getById(bo.token, two))._id).toBe(two)
  })
})

describe('collection.createMany', () => {
  it('creates the deliverables of the caller’s job in one call, or none', async () => {
    const items = [
      { name: 'Design', description: 'Mock-ups', isPrivate: false },
      { name: 'Build', description: 'The page', isPrivate: false },
    ]
    // the SDK's own call reaches POST /v1/collection, which wants one collection's fields
    const viaSdk = await ctx.sdk.collection.createMany(ada.token, {
      type: 'job',
      parent: jobId,
      collections: items,
    })
    expectError(viaSdk, 400, 'VALIDATION_ERROR')
    expect(viaSdk.message).toMatch(/name/)
    const many = async (token: string, body: Record<string, unknown>) => {
      const res = await fetch(`${ctx.baseUrl}/v1/collection/many`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      })
      return { ...((await res.json()) as { status: string; message: string; data: any }), code: res.status }
    }
    const made = expectOk(await many(ada.token, { type: 'job', parent: jobId, collections: items }))
    expect(made.map((c: { name: string; parent: string }) => [c.name, c.parent])).toEqual([
      ['Design', jobId],
      ['Build', jobId],
    ])
    expectError(await many(bo.token, { type: 'job', parent: jobId, collections: items }), 403, 'FORBIDDEN')
    expectError(
      await many(ada.token, {
        type: 'job',
        parent: jobId,
        collections: [items[0]!, { name: ' ', description: 'x', isPrivate: false }],
      }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(await many('', { type: 'job', parent: jobId, collections: items }), 401, 'UNAUTHENTICATED')
    const job = expectOk(await ctx.sdk.collection.getById(ada.token, jobId))
    expect(job.collections).toHaveLength(2)
  })
})
