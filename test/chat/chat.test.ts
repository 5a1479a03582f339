// Chat over REST and the live socket: who may open and read a conversation, messages with
// attachments and quotes, read receipts, pagination, and pushes to the participants.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { multipart, PNG } from '../files/support.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { type Client, connectReady, listen } from '../live/helpers.ts'

let t: TestApp
let url: string
let creator: TestUser
let talent: TestUser
let invitee: TestUser
let stranger: TestUser
let jobId: string
let openJobId: string
const sockets: Client[] = []

async function call(user: TestUser | undefined, method: 'GET' | 'POST', path: string, payload?: object) {
  const res = await t.req({
    method,
    url: path,
    ...(payload ? { payload } : {}),
    ...(user ? { token: user.token } : {}),
  })
  return { code: res.statusCode, body: res.json() }
}

async function postJob(user: TestUser) {
  const res = await call(user, 'POST', '/v1/collection', {
    type: 'job',
    name: 'Landing page',
    description: 'One responsive page',
    isPrivate: false,
    paymentFee: 100,
  })
  expect(res.code, JSON.stringify(res.body)).toBe(200)
  return res.body.data._id as string
}

async function invite(jobId: string, who: TestUser) {
  const res = await call(creator, 'POST', '/v1/invite', { recipient: who.id, collection: jobId })
  expect(res.code, JSON.stringify(res.body)).toBe(200)
  return res.body.data._id as string
}

async function uploadFile(user: TestUser) {
  const { payload, headers } = multipart([
    { name: 'file', filename: 'a.png', contentType: 'image/png', data: PNG },
  ])
  const res = await t.req({ method: 'POST', url: '/v1/upload', payload, headers, token: user.token })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data._id as string
}

beforeAll(async () => {
  t = await createTestApp()
  url = await listen(t.app)
  creator = await createUser(t, { firstName: 'Cora' })
  talent = await createUser(t, { firstName: 'Tala' })
  invitee = await createUser(t, { firstName: 'Ivy' })
  stranger = await createUser(t, { firstName: 'Stan' })
  jobId = await postJob(creator)
  const inv = await invite(jobId, talent)
  expect((await call(talent, 'POST', `/v1/invite/${inv}/accept`)).code).toBe(200)
  openJobId = await postJob(creator)
  await invite(openJobId, invitee)
}, 120_000)
afterAll(async () => {
  for (const s of sockets) s.close()
  await t?.close()
})

describe('opening conversations', () => {
  it('a collection’s creator and talent share its one conversation', async () => {
    const a = await call(creator, 'POST', '/v1/chat', { collectionId: jobId })
    expect(a.code).toBe(200)
    expect(a.body).toMatchObject({ status: 'success', message: 'Conversation' })
    expect(a.body.data).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      type: 'collection',
      collection: jobId,
      recipients: expect.arrayContaining([creator.id, talent.id]),
      messages: [],
      unreadCount: 0,
      lastMessageAt: null,
      createdAt: expect.any(String),
    })
    expect(a.body.data.recipients).toHaveLength(2)
    const b = await call(talent, 'POST', '/v1/chat', { collectionId: jobId })
    expect(b.body.data._id).toBe(a.body.data._id)
  })

  it('refuses outsiders, jobs without a talent, and bad bodies', async () => {
    expect((await call(stranger, 'POST', '/v1/chat', { collectionId: jobId })).body.data.code).toBe(
      'NOT_FOUND',
    )
    const none = await call(creator, 'POST', '/v1/chat', { collectionId: openJobId })
    expect([none.code, none.body.data.code]).toEqual([422, 'COLLECTION_NO_TALENT'])
    expect((await call(creator, 'POST', '/v1/chat', {})).code).toBe(400)
    expect(
      (await call(creator, 'POST', '/v1/chat', { collectionId: jobId, recipientId: talent.id })).code,
    ).toBe(400)
    expect((await call(creator, 'POST', '/v1/chat', { collectionId: 'nope' })).code).toBe(400)
    expect((await call(undefined, 'POST', '/v1/chat', { collectionId: jobId })).code).toBe(401)
  })

  it('direct conversations only between users who share a collection', async () => {
    const d = await call(creator, 'POST', '/v1/chat', { recipientId: invitee.id })
    expect(d.code).toBe(200)
    expect(d.body.data).toMatchObject({ type: 'direct', collection: null })
    expect(new Set(d.body.data.recipients)).toEqual(new Set([creator.id, invitee.id]))
    expect((await call(invitee, 'POST', '/v1/chat', { recipientId: creator.id })).body.data._id).toBe(
      d.body.data._id,
    )
    const no = await call(stranger, 'POST', '/v1/chat', { recipientId: creator.id })
    expect([no.code, no.body.data.code]).toEqual([403, 'FORBIDDEN'])
    expect((await call(talent, 'POST', '/v1/chat', { recipientId: invitee.id })).code).toBe(403)
    expect((await call(creator, 'POST', '/v1/chat', { recipientId: creator.id })).code).toBe(400)
    expect((await call(creator, 'POST', '/v1/chat', { recipientId: 'f'.repeat(24) })).code).toBe(404)
  })
})

describe('messages', () => {
  let convId: string
  beforeAll(async () => {
    convId = (await call(creator, 'POST', '/v1/chat', { collectionId: jobId })).body.data._id
  })

  it('sends text and files, lists them for participants only', async () => {
    const sent = await call(creator, 'POST', `/v1/chat/${convId}/messages`, { content: ' Hello ' })
    expect(sent.code).toBe(200)
    expect(sent.body.data).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      conversation: convId,
      user: creator.id,
      type: 'text',
      content: 'Hello',
      mediaId: null,
      quotedContentId: null,
      readBy: [],
      createdAt: expect.any(String),
    })
    const fileId = await uploadFile(talent)
    const withFile = await call(talent, 'POST', `/v1/chat/${convId}/messages`, {
      mediaId: fileId,
      quotedContentId: sent.body.data._id,
    })
    expect(withFile.code, JSON.stringify(withFile.body)).toBe(200)
    expect(withFile.body.data).toMatchObject({
      type: 'media',
      content: '',
      quotedContentId: sent.body.data._id,
    })
    expect(withFile.body.data.mediaId).toMatchObject({ _id: fileId })

    const list = await call(talent, 'GET', '/v1/chat')
    expect(list.code).toBe(200)
    const conv = list.body.data.find((c: { _id: string }) => c._id === convId)
    expect(conv.messages.map((m: { content: string }) => m.content)).toEqual(['Hello', ''])
    // Sending is reading: the talent has seen the creator's message.
    expect(conv.unreadCount).toBe(0)
    expect(conv.messages[0].readBy).toEqual([talent.id])

    for (const user of [stranger, invitee]) {
      expect((await call(user, 'GET', `/v1/chat/${convId}`)).code).toBe(404)
      expect((await call(user, 'GET', `/v1/chat/${convId}/messages`)).code).toBe(404)
      expect((await call(user, 'POST', `/v1/chat/${convId}/messages`, { content: 'hi' })).code).toBe(404)
      expect((await call(user, 'POST', `/v1/chat/${convId}/read`)).code).toBe(404)
      const theirs = await call(user, 'GET', '/v1/chat')
      expect(theirs.body.data.map((c: { _id: string }) => c._id)).not.toContain(convId)
    }
    expect((await call(undefined, 'GET', '/v1/chat')).code).toBe(401)
  })

  it('refuses empty messages, others’ files and quotes from elsewhere', async () => {
    const empty = await call(creator, 'POST', `/v1/chat/${convId}/messages`, { content: '   ' })
    expect([empty.code, empty.body.data.code]).toEqual([400, 'VALIDATION_ERROR'])
    const othersFile = await uploadFile(talent)
    const bad = await call(creator, 'POST', `/v1/chat/${convId}/messages`, { mediaId: othersFile })
    expect([bad.code, bad.body.data.errors[0].path]).toEqual([400, '/mediaId'])
    const direct = (await call(creator, 'POST', '/v1/chat', { recipientId: invitee.id })).body.data._id
    const elsewhere = (await call(creator, 'POST', `/v1/chat/${direct}/messages`, { content: 'x' })).body.data
      ._id
    const quote = await call(creator, 'POST', `/v1/chat/${convId}/messages`, {
      content: 'q',
      quotedContentId: elsewhere,
    })
    expect([quote.code, quote.body.data.errors[0].path]).toEqual([400, '/quotedContentId'])
    expect(
      (await call(creator, 'POST', `/v1/chat/${convId}/messages`, { content: 'x', extra: 1 })).code,
    ).toBe(400)
    expect(
      (await call(creator, 'POST', `/v1/chat/${convId}/messages`, { content: 'x'.repeat(4001) })).code,
    ).toBe(400)
  })

  it('read receipts: readBy and the unread count follow POST /read', async () => {
    await call(creator, 'POST', `/v1/chat/${convId}/messages`, { content: 'Any news?' })
    await call(creator, 'POST', `/v1/chat/${convId}/messages`, { content: 'Ping' })
    const before = await call(talent, 'GET', `/v1/chat/${convId}`)
    expect(before.body.data.unreadCount).toBe(2)
    expect(before.body.data.messages.at(-1).readBy).toEqual([])
    const read = await call(talent, 'POST', `/v1/chat/${convId}/read`)
    expect(read.code).toBe(200)
    expect(read.body.data).toEqual({ conversationId: convId, userId: talent.id, readAt: expect.any(String) })
    const after = await call(talent, 'GET', `/v1/chat/${convId}`)
    expect(after.body.data.unreadCount).toBe(0)
    const mine = after.body.data.messages.filter((m: { user: string }) => m.user === creator.id)
    expect(mine.every((m: { readBy: string[] }) => m.readBy.includes(talent.id))).toBe(true)
  })

  it('pages the messages newest first', async () => {
    const direct = (await call(invitee, 'POST', '/v1/chat', { recipientId: creator.id })).body.data._id
    for (let i = 0; i < 14; i++)
      await call(invitee, 'POST', `/v1/chat/${direct}/messages`, { content: `m${i}` })
    const p1 = await call(creator, 'GET', `/v1/chat/${direct}/messages?limit=10`)
    expect(p1.body.data).toMatchObject({ page: 1, pages: 2, limit: 10, total: 15 })
    expect(p1.body.data.data[0].content).toBe('m13')
    const p2 = await call(creator, 'GET', `/v1/chat/${direct}/messages?limit=10&page=2`)
    expect(p2.body.data.data.map((m: { content: string }) => m.content)).toEqual([
      'm3',
      'm2',
      'm1',
      'm0',
      'x',
    ])
    expect((await call(creator, 'GET', `/v1/chat/${direct}/messages?limit=101`)).code).toBe(400)
    expect((await call(creator, 'GET', `/v1/chat/${direct}/messages?page=0`)).code).toBe(400)
  })
})

describe('over the live socket', () => {
  it('messages and receipts reach the participants, sent over REST or the socket', async () => {
    const convId = (await call(creator, 'POST', '/v1/chat', { collectionId: jobId })).body.data._id
    const cSock = await connectReady(url, creator.token)
    const tSock = await connectReady(url, talent.token)
    const sSock = await connectReady(url, stranger.token)
    sockets.push(cSock, tSock, sSock)

    const rest = await call(creator, 'POST', `/v1/chat/${convId}/messages`, { content: 'over REST' })
    const pushed = await tSock.next((m) => m.type === 'chat.message' && m.data.content === 'over REST')
    expect(pushed.data).toEqual(JSON.parse(JSON.stringify(rest.body.data)))

    const ack = await tSock.request('chat.send', { conversationId: convId, content: 'over the socket' })
    expect(ack).toMatchObject({
      type: 'ack',
      data: { conversation: convId, user: talent.id, content: 'over the socket' },
    })
    await cSock.next((m) => m.type === 'chat.message' && m.data.content === 'over the socket')

    const receipt = await cSock.request('chat.read', { conversationId: convId })
    expect(receipt).toMatchObject({ type: 'ack', data: { conversationId: convId, userId: creator.id } })
    await tSock.next((m) => m.type === 'chat.read' && m.data.userId === creator.id)

    const denied = await sSock.request('chat.send', { conversationId: convId, content: 'let me in' })
    expect(denied).toMatchObject({ type: 'error', data: { code: 'NOT_FOUND' } })
    const invalid = await tSock.request('chat.send', { conversationId: convId, content: 5 })
    expect(invalid).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } })
    expect((await tSock.request('chat.read', {})).data.code).toBe('VALIDATION_ERROR')
    expect(sSock.messages.filter((m) => m.type.startsWith('chat.'))).toEqual([])
  })
})
