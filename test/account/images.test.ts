// Profile images reference the caller's own public uploads and are shown as file summaries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PNG } from '../files/support.ts'
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

async function upload(user: TestUser, visibility: 'public' | 'private' = 'public') {
  const boundary = '----wpboundary'
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="me.png"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    PNG,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  const res = await t.req({
    method: 'POST',
    url: visibility === 'public' ? '/v1/upload' : '/v1/upload/private',
    payload,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    token: user.token,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as { _id: string; name: string; type: string; size: string; url: string }
}

const update = (user: TestUser, payload: object) =>
  t.req({ method: 'PATCH', url: '/v1/account/update', payload, token: user.token })

describe('profile images', () => {
  it('shows an uploaded public image as the file summary, and null removes it', async () => {
    const file = await upload(alice)
    const res = await update(alice, { profileImage: file._id, bgImage: file._id })
    expect(res.statusCode, res.body).toBe(200)
    const summary = { _id: file._id, name: file.name, type: 'image/png', size: file.size, url: file.url }
    expect(res.json().data.profileImage).toEqual(summary)
    expect(res.json().data.bgImage).toEqual(summary)
    const me = await t.req({ method: 'GET', url: '/v1/account', token: alice.token })
    expect(me.json().data.profileImage).toEqual(summary)
    const cleared = await update(alice, { profileImage: null })
    expect(cleared.json().data.profileImage).toEqual({})
    expect(cleared.json().data.bgImage).toEqual(summary)
  })

  it("refuses someone else's file, a private file and an unknown id", async () => {
    const bobs = await upload(bob)
    const mine = await upload(alice, 'private')
    for (const id of [bobs._id, mine._id, 'ffffffffffffffffffffffff']) {
      const res = await update(alice, { profileImage: id })
      expect(res.statusCode).toBe(400)
      expect(res.json().data.code).toBe('VALIDATION_ERROR')
    }
    expect((await update(alice, { profileImage: 'not-an-id' })).statusCode).toBe(400)
  })

  it('drops the image from the profile once the file is deleted', async () => {
    const file = await upload(alice)
    await update(alice, { bgImage: file._id })
    const del = await t.req({ method: 'DELETE', url: `/v1/upload/${file._id}`, token: alice.token })
    expect(del.statusCode).toBe(200)
    const me = await t.req({ method: 'GET', url: '/v1/account', token: alice.token })
    expect(me.json().data.bgImage).toEqual({})
  })
})
