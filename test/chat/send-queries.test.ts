// Sending a chat message (POST /v1/chat/{id}/messages) takes three statements: what the send
// checks (the conversation, its job's parties, the membership, the quoted message), the write (the
// parties joined, the message, the last activity, the sender's read mark, the members as they are
// after it), and the live push; a message with a file adds the check that the file is the sender's.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCollection, createMember, expectError, type Member } from '../collections/helpers.ts'
import { multipart, PNG } from '../files/support.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
let creator: Member
let talent: Member
let next: Member
let jobId = ''
let conv = ''
let otherConv = ''

async function req(method: 'GET' | 'POST', url: string, token: string, payload?: object) {
  const res = await t.req({ method, url, token, ...(payload ? { payload } : {}) })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data
}

/** Sends as `token`: the answer and the number of statements it took. */
async function send(token: string, body: object, id = conv) {
  const before = t.database.queryCount()
  const res = await t.req({ method: 'POST', url: `/v1/chat/${id}/messages`, token, payload: body })
  return { queries: t.database.queryCount() - before, res }
}

/** The message as the conversation's page shows it to `token`. */
async function listedAs(token: string, id: string) {
  const page = await req('GET', `/v1/chat/${conv}/messages?limit=50`, token)
  return page.data.find((m: { _id: string }) => m._id === id)
}

async function hired(job: string, who: Member) {
  const invite = await req('POST', '/v1/invite', creator.token, { recipient: who.id, collection: job })
  await req('POST', `/v1/invite/${invite._id}/accept`, who.token)
}

beforeAll(async () => {
  t = await createTestApp()
  creator = await createMember(t, { firstName: 'Cora' })
  talent = await createMember(t, { firstName: 'Tala' })
  next = await createMember(t, { firstName: 'Nico' })
  jobId = (await createCollection(t, creator.token, { name: 'Chatty job' }))._id
  await hired(jobId, talent)
  conv = (await req('POST', '/v1/chat', creator.token, { collectionId: jobId }))._id
  const other = (await createCollection(t, creator.token, { name: 'Other job' }))._id
  await hired(other, talent)
  otherConv = (await req('POST', '/v1/chat', creator.token, { collectionId: other }))._id
  // Each session once, so that the counts below are of the sends alone.
  for (const m of [creator, talent, next]) await t.req({ method: 'GET', url: '/v1/chat', token: m.token })
})
afterAll(async () => {
  await t?.close()
})

describe('sending a chat message', () => {
  it('takes three statements, and answers the message as the conversation shows it', async () => {
    t.clock.advance(1000)
    const first = await send(creator.token, { content: 'Hello' })
    expect(first.res.statusCode, first.res.body).toBe(200)
    expect(first.queries).toBe(3)
    const message = first.res.json().data
    expect(message).toMatchObject({ user: creator.id, type: 'text', content: 'Hello', readBy: [] })
    expect(message).toEqual(await listedAs(creator.token, message._id))
    // The talent has read the first one; the quote is checked in the same statements.
    await req('POST', `/v1/chat/${conv}/read`, talent.token)
    expect((await listedAs(talent.token, message._id)).readBy).toEqual([talent.id])
    const second = await send(creator.token, { content: 'Seen?', quotedContentId: message._id })
    expect(second.queries).toBe(3)
    expect(second.res.json().data).toMatchObject({ quotedContentId: message._id, readBy: [] })
    expect(second.res.json().data).toEqual(await listedAs(talent.token, second.res.json().data._id))
    const seen = await req('GET', `/v1/chat/${conv}`, creator.token)
    expect(seen.unreadCount).toBe(0)
  })

  it('takes four with a file, the file’s summary read by the ownership check', async () => {
    const { payload, headers } = multipart([
      { name: 'file', filename: 'a.png', contentType: 'image/png', data: PNG },
    ])
    const up = await t.req({ method: 'POST', url: '/v1/upload', payload, headers, token: talent.token })
    expect(up.statusCode, up.body).toBe(200)
    t.clock.advance(1000)
    const sent = await send(talent.token, { mediaId: up.json().data._id })
    expect(sent.res.statusCode, sent.res.body).toBe(200)
    expect(sent.queries).toBe(4)
    const message = sent.res.json().data
    expect(message.mediaId).toMatchObject({ _id: up.json().data._id, type: 'image/png' })
    expect(message).toEqual(await listedAs(talent.token, message._id))
    // Someone else's file is refused as before, and nothing is written.
    const theirs = await send(creator.token, { mediaId: up.json().data._id })
    expectError(theirs.res, 400, 'VALIDATION_ERROR')
    expect(theirs.res.json().data.errors[0].path).toBe('/mediaId')
  })

  it('refuses what it refused before, in the same order', async () => {
    const elsewhere = (await send(creator.token, { content: 'Other' }, otherConv)).res.json().data._id
    const quote = await send(creator.token, { content: 'Quote', quotedContentId: elsewhere })
    expectError(quote.res, 400, 'VALIDATION_ERROR')
    expect(quote.res.json().data.errors[0].path).toBe('/quotedContentId')
    expectError((await send(next.token, { content: 'Hi' })).res, 404, 'NOT_FOUND')
    expectError((await send(creator.token, { content: 'Hi' }, 'f'.repeat(24))).res, 404, 'NOT_FOUND')
  })

  it('joins a new talent to the conversation with their first message, read up to it', async () => {
    // The talent is replaced: the new one takes part, the old one no longer does.
    await sql`update collections set receiver_id = ${next.id} where id = ${jobId}`.execute(t.database.db)
    t.clock.advance(1000)
    const sent = await send(next.token, { content: 'Taking over' })
    expect(sent.res.statusCode, sent.res.body).toBe(200)
    expect(sent.queries).toBe(3)
    const seen = await req('GET', `/v1/chat/${conv}`, next.token)
    expect(seen.recipients).toEqual([creator.id, talent.id, next.id])
    expect(seen.unreadCount).toBe(0)
    expect(sent.res.json().data).toEqual(await listedAs(next.token, sent.res.json().data._id))
    expectError((await send(talent.token, { content: 'Still here?' })).res, 404, 'NOT_FOUND')
  })
})
