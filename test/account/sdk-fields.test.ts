// Profile update (#37) with the public SDK's fields: isPrivate and its effect on #39 and #40,
// profile images as the SDK sends them, free-form meta with its limits, and the SDK's
// availability values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PNG } from '../files/support.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser, uniqueEmail } from '../helpers/factories.ts'
import { api, expectError, expectOk, signUp } from './helpers.ts'

let t: TestApp
let a: ReturnType<typeof api>
let viewer: TestUser
beforeAll(async () => {
  t = await createTestApp()
  a = api(t)
  viewer = await createUser(t)
})
afterAll(() => t.close())

const update = (user: { token: string }, payload: unknown) =>
  a.patch('/v1/account/update', payload, user.token)
const word = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 10)}`

async function upload(user: TestUser, url = '/v1/upload') {
  const boundary = '----sdkboundary'
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="me.png"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    PNG,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  const res = await t.req({
    method: 'POST',
    url,
    payload,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    token: user.token,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as { _id: string; name: string; size: string; url: string }
}

describe('isPrivate', () => {
  it('hides the profile from other people’s search and their view of #39, until turned off', async () => {
    const name = word('Priv')
    const u = await createUser(t, { firstName: name })
    expectOk(
      await update(u, {
        profile: {
          contact: { city: 'Lisbon' },
          bio: { title: 'Engineer' },
          talent: { about: 'Builds things', availability: 'busy', tags: ['rust'] },
        },
      }),
    )
    // A referral gives the account an achievement, which a private profile withholds.
    const me = expectOk(await a.get('/v1/account', u.token))
    await signUp(t, { referralCode: me.referralCode })
    const search = (token: string) => a.get(`/v1/account/user?search=${name}`, token)
    expect(expectOk(await search(viewer.token)).total).toBe(1)

    const priv = expectOk(await update(u, { isPrivate: true }))
    expect(priv.isPrivate).toBe(true)
    expect(priv.profile.contact).toEqual({ city: 'Lisbon' })
    expect(expectOk(await search(viewer.token))).toMatchObject({ total: 0, data: [] })
    expect(
      expectOk(await a.get('/v1/account/user?tags=rust', viewer.token)).data.map((x: any) => x._id),
    ).not.toContain(u.id)
    // Its owner still finds it.
    expect(expectOk(await search(u.token)).data.map((x: any) => x._id)).toEqual([u.id])

    const seen = expectOk(await a.get(`/v1/account/user/${u.id}`, viewer.token))
    expect(seen).toEqual({
      _id: u.id,
      firstName: name,
      lastName: 'User',
      role: 'user',
      type: 'recipient',
      profile: { talent: { tags: [], tagsIds: [] }, verified: false },
      isPrivate: true,
      score: 0,
      profileCompleteness: expect.any(Number),
      socket: { status: 'OFFLINE' },
      achievements: [],
      kyc: false,
      kycStatus: null,
    })
    const own = expectOk(await a.get(`/v1/account/user/${u.id}`, u.token))
    expect(own.profile.talent).toMatchObject({ availability: 'busy', tags: ['rust'] })
    expect(own.achievements).toEqual([expect.objectContaining({ type: 'referral', total: '1' })])
    // Bookmarking a private profile is refused as for an unknown one.
    expectError(
      await a.post('/v1/bookmark', { type: 'user', reference: u.id }, viewer.token),
      404,
      'NOT_FOUND',
    )

    expect(expectOk(await update(u, { isPrivate: false })).isPrivate).toBe(false)
    const back = expectOk(await search(viewer.token))
    expect(back.total).toBe(1)
    expect(back.data[0].profile.contact).toEqual({ city: 'Lisbon' })
    expect(expectOk(await a.get(`/v1/account/user/${u.id}`, viewer.token)).profile.talent.tags).toEqual([
      'rust',
    ])
  })

  it.each([['yes'], [1], [null], [{}]])('refuses isPrivate %j', async (value) => {
    const u = await createUser(t)
    const res = await update(u, { isPrivate: value })
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(expectOk(await a.get('/v1/account', u.token)).isPrivate).toBe(false)
  })

  it('needs a token', async () => {
    expectError(
      await t.req({ method: 'PATCH', url: '/v1/account/update', payload: { isPrivate: true } }),
      401,
      'UNAUTHENTICATED',
    )
  })
})

describe('profile images as the SDK sends them', () => {
  it('takes an upload id as a string; an empty string or null removes it', async () => {
    const u = await createUser(t)
    const file = await upload(u)
    const set = expectOk(await update(u, { profileImage: file._id, bgImage: file._id }))
    expect(set.profileImage).toEqual({
      _id: file._id,
      name: file.name,
      type: 'image/png',
      size: file.size,
      url: file.url,
    })
    const cleared = expectOk(await update(u, { profileImage: '' }))
    expect(cleared.profileImage).toEqual({})
    expect(cleared.bgImage._id).toBe(file._id)
    expect(expectOk(await update(u, { bgImage: null })).bgImage).toEqual({})
  })

  it('refuses a private upload, someone else’s upload, and a malformed id', async () => {
    const u = await createUser(t)
    const other = await createUser(t)
    const priv = await upload(u, '/v1/upload/private')
    const theirs = await upload(other)
    for (const [body, path] of [
      [{ profileImage: priv._id }, '/profileImage'],
      [{ bgImage: theirs._id }, '/bgImage'],
      [{ profileImage: 'not-an-id' }, '/profileImage'],
      [{ bgImage: ' ' }, '/bgImage'],
      [{ profileImage: 42 }, '/profileImage'],
    ] as const) {
      const res = await update(u, body)
      expectError(res, 400, 'VALIDATION_ERROR')
      expect(res.json().data.errors[0].path).toBe(path)
    }
    expect(expectOk(await a.get('/v1/account', u.token)).profileImage).toEqual({})
  })
})

describe('meta', () => {
  it('merges keys into meta, removes a key sent as null, and keeps pointScore', async () => {
    const u = await createUser(t)
    const first = expectOk(
      await update(u, { meta: { theme: 'dark', layout: { cols: [1, 2], dense: true } } }),
    )
    expect(first.meta).toEqual({ pointScore: 0, theme: 'dark', layout: { cols: [1, 2], dense: true } })
    const second = expectOk(await update(u, { meta: { lang: 'pt', theme: null } }))
    expect(second.meta).toEqual({ pointScore: 0, lang: 'pt', layout: { cols: [1, 2], dense: true } })
    expect(expectOk(await a.get('/v1/account', u.token)).meta).toEqual(second.meta)
    // meta is the owner's: never in another user's view.
    const pub = expectOk(await a.get(`/v1/account/user/${u.id}`, viewer.token))
    expect(pub.meta).toBeUndefined()
    expect(JSON.stringify(pub)).not.toContain('layout')
  })

  it('accepts five levels (meta itself the first) and 16 KiB, refuses more', async () => {
    const u = await createUser(t)
    expectOk(await update(u, { meta: { a: { b: { c: { d: [1] } } } } }))
    expectOk(await update(u, { meta: { a: { b: { c: { d: { e: 1 } } } } } }))
    const deep = await update(u, { meta: { a: { b: { c: { d: { e: {} } } } } } })
    expectError(deep, 400, 'VALIDATION_ERROR')
    expect(deep.json().data.errors[0].path).toBe('/meta')
    const deepArray = await update(u, { meta: { a: [[[[[1]]]]] } })
    expectError(deepArray, 400, 'VALIDATION_ERROR')

    // The stored meta as a whole counts: two halves fit one at a time, not together.
    const half = 'x'.repeat(9000)
    expectOk(await update(u, { meta: { a: null, one: half } }))
    const tooMuch = await update(u, { meta: { two: half } })
    expectError(tooMuch, 400, 'VALIDATION_ERROR')
    expect(tooMuch.json().message).toMatch(/16384 bytes/)
    expect(Object.keys(expectOk(await a.get('/v1/account', u.token)).meta).sort()).toEqual([
      'one',
      'pointScore',
    ])
    expectOk(await update(u, { meta: { one: null, two: half } }))
    expectError(await update(u, { meta: { big: 'é'.repeat(8200) } }), 400, 'VALIDATION_ERROR')
  })

  it.each([
    [{ meta: { pointScore: 1000 } }, '/meta/pointScore'],
    [{ meta: { pointScore: null } }, '/meta/pointScore'],
    [{ meta: [1, 2] }, '/meta'],
    [{ meta: 'text' }, '/meta'],
    [{ meta: null }, '/meta'],
    [{ meta: { note: 'a\u0000b' } }, '/meta'],
  ])('refuses %j', async (body, path) => {
    const u = await createUser(t)
    const res = await update(u, body)
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(res.json().data.errors[0].path.startsWith(path)).toBe(true)
    expect(expectOk(await a.get('/v1/account', u.token)).meta).toEqual({ pointScore: 0 })
  })

  it('refuses a __proto__ key without changing anything', async () => {
    const u = await createUser(t)
    const res = await t.req({
      method: 'PATCH',
      url: '/v1/account/update',
      token: u.token,
      headers: { 'content-type': 'application/json' },
      payload: '{"meta":{"__proto__":{"polluted":true}}}',
    })
    expect(res.statusCode).toBe(400)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(expectOk(await a.get('/v1/account', u.token)).meta).toEqual({ pointScore: 0 })
  })
})

describe('availability', () => {
  it.each([['available'], ['limited'], ['unavailable'], ['busy'], ['working']])(
    'accepts %s',
    async (value) => {
      const u = await createUser(t)
      const data = expectOk(await update(u, { profile: { talent: { availability: value } } }))
      expect(data.profile.talent.availability).toBe(value)
      expect(data.profileCompleteness).toBe(Math.round(100 / 14))
    },
  )

  it.each([['away'], ['BUSY'], [''], [1]])('refuses %j', async (value) => {
    const u = await createUser(t, { email: uniqueEmail('avail') })
    const res = await update(u, { profile: { talent: { availability: value } } })
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(res.json().data.errors[0].path).toMatch(/^\/profile\/talent\/availability/)
  })
})
