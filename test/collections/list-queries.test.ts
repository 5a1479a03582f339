// GET /v1/collection (#27) answers from one query (two when the total of a filter other than a
// search must be counted apart): the creators, receivers, tags, children, bookmarks, attachments
// and paymentWebHook of a page come with its rows, however many rows the page holds.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PNG } from '../files/support.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createCollection, createMember, type Member, summaryOf } from './helpers.ts'

let t: TestApp
let alice: Member
let bob: Member
const ids: string[] = []
let parentId = ''
let attachmentId = ''

async function upload(token: string): Promise<string> {
  const boundary = '----wplistq'
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`),
    PNG,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  const res = await t.req({
    method: 'POST',
    url: '/v1/upload',
    payload,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    token,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data._id
}

beforeAll(async () => {
  t = await createTestApp()
  alice = await createMember(t, { firstName: 'Alice' })
  bob = await createMember(t, { firstName: 'Bob' })
  attachmentId = await upload(alice.token)
  // Each collection with its own creator, tags, and the rest the forms show beside the row.
  for (let i = 0; i < 14; i++) {
    t.clock.advance(1000)
    const who = i % 2 === 0 ? alice : bob
    const c = await createCollection(t, who.token, {
      name: `Garden job ${i}`,
      tags: [`Skill${i}`, 'Shared'],
      paymentFee: String(100 + i),
      ...(i === 0 ? { attachments: [attachmentId], paymentWebHook: 'http://localhost:9/hook' } : {}),
      ...(i === 1 ? { isPrivate: true } : {}),
    })
    ids.push(c._id)
  }
  parentId = ids[0]!
  await createCollection(t, alice.token, { name: 'Garden child', parent: parentId })
  await sql`update collections set receiver_id = ${bob.id} where id = ${ids[2]!}`.execute(t.database.db)
  const mark = await t.req({
    method: 'POST',
    url: '/v1/bookmark',
    payload: { type: 'collection', reference: ids[4]! },
    token: alice.token,
  })
  expect(mark.statusCode, mark.body).toBe(200)
})
afterAll(async () => {
  await t?.close()
})

/** The list as `token` sees it, with the number of statements it took. */
async function listed(query: string, token = alice.token) {
  const before = t.database.queryCount()
  const res = await t.req({ method: 'GET', url: `/v1/collection${query}`, token })
  const queries = t.database.queryCount() - before
  expect(res.statusCode, res.body).toBe(200)
  return { queries, data: res.json().data }
}

const byId = (data: { data: { _id: string }[] }, id: string) => data.data.find((c) => c._id === id) as any

describe('the collection list’s queries', () => {
  it('answers the unfiltered first page, with everything its forms show, in one query', async () => {
    const { queries, data } = await listed('?limit=20&receiver=true')
    expect(queries).toBe(1)
    // 14 top-level ones, the child and bob's private one (alice does not see it).
    expect(data.total).toBe(14)
    const first = byId(data, parentId)
    expect(first.creator).toEqual(summaryOf(alice))
    expect(first.tags.map((tag: { name: string }) => tag.name)).toEqual(['Skill0', 'Shared'])
    expect(first.collections).toHaveLength(1)
    expect(first.attachments).toEqual([attachmentId])
    expect(first.attachmentData).toMatchObject([{ _id: attachmentId, type: 'image/png' }])
    expect(first.paymentWebHook).toBe('http://localhost:9/hook')
    expect(byId(data, ids[2]!).receiver).toEqual(summaryOf(bob))
    expect(byId(data, ids[3]!).receiver).toBeNull()
    expect(byId(data, ids[4]!)).toMatchObject({ isBookmarked: true, bookmarkId: expect.any(String) })
    expect(byId(data, ids[6]!)).toMatchObject({ isBookmarked: false, bookmarkId: '' })
    expect(byId(data, ids[1]!)).toBeUndefined()
  })

  it('answers a search by words, tags and price in one query, its total counted in the same scan', async () => {
    const { queries, data } = await listed('?search=garden&tags=shared,skill3&price=100-200')
    expect(queries).toBe(1)
    expect(data.total).toBe(13)
    expect(data.data).toHaveLength(12)
    // Another viewer: bob sees his private one too, and none of alice's paymentWebHook.
    const bobs = await listed('?search=garden&tags=shared&limit=20', bob.token)
    expect(bobs.queries).toBe(1)
    expect(bobs.data.total).toBe(14)
    expect(byId(bobs.data, parentId)).not.toHaveProperty('paymentWebHook')
  })

  it('counts apart only when the page does not tell the total of another filter', async () => {
    const full = await listed('?type=job&limit=5')
    expect(full.queries).toBeLessThanOrEqual(2)
    expect(full.data.total).toBe(14)
    const short = await listed('?type=job&limit=20')
    expect(short.queries).toBe(1)
    expect(short.data.total).toBe(14)
    const pastTheEnd = await listed('?page=9')
    expect(pastTheEnd.queries).toBeLessThanOrEqual(2)
    expect(pastTheEnd.data).toMatchObject({ total: 14, data: [] })
  })
})
