// Collection attachments reference the creator's own uploads and show as file summaries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PDF, PNG } from '../files/support.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let alice: TestUser
let bob: TestUser
beforeAll(async () => {
  t = await createTestApp()
  alice = await createUser(t)
  bob = await createUser(t)
})
afterAll(() => t.close())

async function upload(user: TestUser, body: Buffer, filename: string, path = '/v1/upload') {
  const boundary = '----wpattach'
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n`,
    ),
    body,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  const res = await t.req({
    method: 'POST',
    url: path,
    payload,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    token: user.token,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as { _id: string; name: string; type: string; size: string; url: string }
}

const create = (user: TestUser, extra: object) =>
  t.req({
    method: 'POST',
    url: '/v1/collection',
    token: user.token,
    payload: { type: 'job', name: 'Logo design', description: 'A logo', ...extra },
  })

describe('collection attachments', () => {
  it('attaches own files on create and update and shows them as summaries in every form', async () => {
    const png = await upload(alice, PNG, 'brief.png')
    const pdf = await upload(alice, PDF, 'spec.pdf', '/v1/upload/private')
    const res = await create(alice, { attachments: [png._id, png._id] })
    expect(res.statusCode, res.body).toBe(200)
    const c = res.json().data
    expect(c.attachments).toEqual([png._id])
    expect(c.attachmentData).toEqual([
      { _id: png._id, name: png.name, type: 'image/png', size: png.size, url: png.url },
    ])

    const upd = await t.req({
      method: 'PATCH',
      url: `/v1/collection/${c._id}`,
      token: alice.token,
      payload: { attachments: [png._id, pdf._id] },
    })
    expect(upd.statusCode, upd.body).toBe(200)
    const got = await t.req({ method: 'GET', url: `/v1/collection/${c._id}`, token: alice.token })
    expect(got.json().data.attachments).toEqual([png._id, pdf._id])
    expect(got.json().data.attachmentData.map((f: { type: string }) => f.type)).toEqual([
      'image/png',
      'application/pdf',
    ])
    const list = await t.req({ method: 'GET', url: '/v1/collection?search=logo', token: bob.token })
    const item = list.json().data.data.find((x: { _id: string }) => x._id === c._id)
    expect(item.attachmentData).toHaveLength(2)
  })

  it("refuses someone else's file and unknown ids, and changes nothing", async () => {
    const bobs = await upload(bob, PNG, 'x.png')
    for (const id of [bobs._id, 'ffffffffffffffffffffffff']) {
      const res = await create(alice, { name: `refused ${id}`, attachments: [id] })
      expect(res.statusCode).toBe(400)
      expect(res.json().data.code).toBe('VALIDATION_ERROR')
    }
    const rows = await t.database.db
      .selectFrom('collections')
      .select('id')
      .where('name', 'like', 'refused%')
      .execute()
    expect(rows).toHaveLength(0)
  })

  it('drops a deleted file from the collection forms', async () => {
    const png = await upload(alice, PNG, 'gone.png')
    const c = (await create(alice, { attachments: [png._id] })).json().data
    expect(
      (await t.req({ method: 'DELETE', url: `/v1/upload/${png._id}`, token: alice.token })).statusCode,
    ).toBe(200)
    const got = await t.req({ method: 'GET', url: `/v1/collection/${c._id}`, token: alice.token })
    expect(got.json().data.attachments).toEqual([])
    expect(got.json().data.attachmentData).toEqual([])
  })
})
