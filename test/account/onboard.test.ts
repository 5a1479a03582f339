// Onboarding (POST /v1/account/onboard): skill category, profile image and account type.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PNG } from '../files/support.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
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
  return res.json().data as { _id: string }
}

const onboard = (user: TestUser | undefined, payload: object) =>
  t.req({ method: 'POST', url: '/v1/account/onboard', payload, ...(user ? { token: user.token } : {}) })

describe('POST /v1/account/onboard', () => {
  it('saves the skill category, the profile image and the type, and answers the full profile', async () => {
    const file = await upload(alice)
    const res = await onboard(alice, { skillCategory: 'design', profileImage: file._id, type: 'Business' })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body.message).toBe('Onboarding saved')
    expect(body.data).toMatchObject({
      _id: alice.id,
      type: 'business',
      profileImage: { _id: file._id, type: 'image/png' },
      profile: { talent: { tagsCategory: 'Design' } },
    })
    const me = (await t.req({ method: 'GET', url: '/v1/account', token: alice.token })).json().data
    expect(me.profile.talent.tagsCategory).toBe('Design')
    expect(me.type).toBe('business')
    // again, to change them
    const again = await onboard(alice, { skillCategory: 'Writing', profileImage: file._id, type: 'talent' })
    expect(again.json().data).toMatchObject({
      type: 'talent',
      profile: { talent: { tagsCategory: 'Writing' } },
    })
  })

  it('refuses an unknown category or type, a missing field, and an image that is not the caller’s public upload', async () => {
    const mine = await upload(bob)
    const privateFile = await upload(bob, 'private')
    const alices = await upload(alice)
    const good = { skillCategory: 'Data', profileImage: mine._id, type: 'talent' }
    const cases: [object, string][] = [
      [{ ...good, skillCategory: 'Astrology' }, '/skillCategory'],
      [{ ...good, type: 'admin' }, '/type'],
      [{ ...good, profileImage: alices._id }, '/profileImage'],
      [{ ...good, profileImage: privateFile._id }, '/profileImage'],
      [{ ...good, profileImage: 'nope' }, '/profileImage'],
      [{ skillCategory: 'Data', type: 'talent' }, ''],
      [{ ...good, extra: 1 }, ''],
    ]
    for (const [payload, path] of cases) {
      const res = await onboard(bob, payload)
      expectError(res, 400, 'VALIDATION_ERROR')
      if (path) expect(JSON.stringify(res.json().data.errors)).toContain(path)
    }
    // nothing was saved
    const me = (await t.req({ method: 'GET', url: '/v1/account', token: bob.token })).json().data
    expect(me.profile.talent.tagsCategory).toBeUndefined()
    expect(me.type).toBe('recipient')
  })

  it('needs a live token', async () => {
    const file = await upload(bob)
    const body = { skillCategory: 'Data', profileImage: file._id, type: 'talent' }
    expectError(await onboard(undefined, body), 401, 'UNAUTHENTICATED')
    const gone = await createUser(t)
    await t.req({ method: 'POST', url: '/v1/account/logout', token: gone.token })
    expectError(await onboard(gone, body), 401, 'UNAUTHENTICATED')
  })
})
