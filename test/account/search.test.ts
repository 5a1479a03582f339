import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../src/platform/crypto/ids.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
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

const word = (prefix = 'w') => `${prefix}${randomBytes(4).toString('hex')}`
const search = (query: string, token = viewer.token) => a.get(`/v1/account/user?${query}`, token)
const ids = (data: any) => data.data.map((u: any) => u._id)
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

async function person(
  profile: Record<string, unknown> = {},
  names: { firstName?: string; lastName?: string } = {},
) {
  const u = await createUser(t, names)
  // Distinct creation times keep the newest-first order certain.
  t.clock.advance(1000)
  if (Object.keys(profile).length) expectOk(await a.patch('/v1/account/update', profile, u.token))
  return u
}

describe('GET /v1/account/user (#40)', () => {
  it('answers the page envelope with search-form rows, newest first', async () => {
    const tag = word('tag')
    const older = await person({
      profile: {
        contact: { city: 'Accra', phone: '+233201234567' },
        bio: { title: 'Designer', description: 'Bio text' },
        talent: { about: 'Figma work', availability: 'available', tags: [tag] },
      },
    })
    const newer = await person({ profile: { talent: { tags: [tag] } } })
    const res = await search(`tags=${tag}`)
    expect(res.json().message).toEqual(expect.any(String))
    const data = expectOk(res)
    expect(data).toEqual({ pages: 1, page: 1, total: 2, limit: 12, position: 0, data: expect.any(Array) })
    expect(ids(data)).toEqual([newer.id, older.id])
    const row = data.data[1]
    expect(Object.keys(row).sort()).toEqual(
      [
        '_id',
        'achievements',
        'bookmarkId',
        'createdAt',
        'firstName',
        'isBookmarked',
        'isPrivate',
        'kyc',
        'kycStatus',
        'lastName',
        'profile',
        'profileCompleteness',
        'role',
        'score',
        'socket',
        'type',
        'updatedAt',
      ].sort(),
    )
    expect(row.profile).toEqual({
      contact: { city: 'Accra', phone: '+233201234567' },
      bio: { title: 'Designer', description: 'Bio text' },
      talent: {
        about: 'Figma work',
        availability: 'available',
        tags: [tag],
        tagsIds: [expect.objectContaining({ key: tag, name: tag, entryCount: 2 })],
      },
      verified: false,
    })
    expect(row).toMatchObject({
      isBookmarked: false,
      bookmarkId: '',
      socket: { status: 'OFFLINE' },
      achievements: [],
      kyc: false,
      kycStatus: null,
    })
    expect(row.createdAt).toMatch(ISO)
    expect(row.profile.talent.tagsIds[0].createdAt).toMatch(ISO)
    expect(JSON.stringify(data)).not.toContain(older.email)
  })

  it('pages with page, limit and position (0-based offset of the first item)', async () => {
    const tag = word('page')
    const made: string[] = []
    for (let i = 0; i < 5; i++) made.push((await person({ profile: { talent: { tags: [tag] } } })).id)
    const newestFirst = made.reverse()
    const p1 = expectOk(await search(`tags=${tag}&limit=2`))
    expect(p1).toMatchObject({ pages: 3, page: 1, total: 5, limit: 2, position: 0 })
    expect(ids(p1)).toEqual(newestFirst.slice(0, 2))
    const p3 = expectOk(await search(`tags=${tag}&limit=2&page=3`))
    expect(p3).toMatchObject({ pages: 3, page: 3, total: 5, limit: 2, position: 4 })
    expect(ids(p3)).toEqual(newestFirst.slice(4))
    const beyond = expectOk(await search(`tags=${tag}&limit=2&page=9`))
    expect(beyond).toMatchObject({ pages: 3, page: 9, total: 5, position: 16, data: [] })
    const none = expectOk(await search(`tags=${word('none')}`))
    expect(none).toEqual({ pages: 0, page: 1, total: 0, limit: 12, position: 0, data: [] })
  })

  it('defaults to 12 per page', async () => {
    const data = expectOk(await search(''))
    expect(data.limit).toBe(12)
    expect(data.data.length).toBeLessThanOrEqual(12)
  })

  it.each([
    'limit=0',
    'limit=101',
    'limit=abc',
    'page=0',
    'page=-1',
    'page=1.5',
    'profileCompletenessMin=-1',
    'profileCompletenessMax=101',
    'profileCompletenessMin=x',
    'profileCompletenessMin=60&profileCompletenessMax=50',
    'owner=maybe',
    'unknown=1',
    `search=${'x'.repeat(201)}`,
  ])('refuses %s with 400', async (query) => {
    expectError(await search(query), 400, 'VALIDATION_ERROR')
  })

  it('filters by tags: comma-separated, any of them, by key, case-insensitive', async () => {
    const [t1, t2, t3] = [word('ta'), word('tb'), word('tc')]
    const u1 = await person({ profile: { talent: { tags: [t1] } } })
    const u2 = await person({ profile: { talent: { tags: [t2, t3] } } })
    await person({ profile: { talent: { tags: [t3] } } })
    expect(ids(expectOk(await search(`tags=${t1.toUpperCase()}`)))).toEqual([u1.id])
    expect(ids(expectOk(await search(`tags=${encodeURIComponent(` ${t1} ,${t2.toUpperCase()}`)}`)))).toEqual([
      u2.id,
      u1.id,
    ])
    // A user with two matching tags appears once.
    expect(expectOk(await search(`tags=${t2},${t3}`)).total).toBe(2)
    // A new tag set replaces the old one in the filter at once; an update without tags keeps them.
    expectOk(await a.patch('/v1/account/update', { profile: { talent: { tags: [t3] } } }, u1.token))
    expect(ids(expectOk(await search(`tags=${t1}`)))).toEqual([])
    expect(expectOk(await search(`tags=${t3}`)).total).toBe(3)
    expectOk(await a.patch('/v1/account/update', { firstName: 'Renamed' }, u1.token))
    expect(expectOk(await search(`tags=${t3}`)).total).toBe(3)
    expectOk(await a.patch('/v1/account/update', { profile: { talent: { tags: [] } } }, u1.token))
    expect(ids(expectOk(await search(`tags=${t3}`)))).not.toContain(u1.id)
  })

  it('filters by profile completeness (inclusive bounds) and role', async () => {
    const tag = word('pc')
    const low = await person({ profile: { talent: { tags: [tag] } } }) // 7
    const mid = await person({
      profile: { contact: { city: 'A', country: 'B', state: 'C' }, talent: { tags: [tag], about: 'x' } },
    }) // 36
    expect(ids(expectOk(await search(`tags=${tag}&profileCompletenessMin=36`)))).toEqual([mid.id])
    expect(ids(expectOk(await search(`tags=${tag}&profileCompletenessMax=35.5`)))).toEqual([low.id])
    expect(
      ids(expectOk(await search(`tags=${tag}&profileCompletenessMin=7&profileCompletenessMax=36`))),
    ).toEqual([mid.id, low.id])
    await t.database.db.updateTable('users').set({ role: 'partner' }).where('id', '=', low.id).execute()
    expect(ids(expectOk(await search(`tags=${tag}&role=partner`)))).toEqual([low.id])
    expect(ids(expectOk(await search(`tags=${tag}&role=user`)))).toEqual([mid.id])
  })

  it('searches names, userName, title, about and tags: case-insensitive word prefixes, all words', async () => {
    const first = word('Zed')
    const title = word('title')
    const about = word('about')
    const tag = word('skill')
    const u = await person(
      {
        profile: {
          bio: { title: `Senior ${title}` },
          talent: { about: `I do ${about}.`, tags: [`${tag}.js`] },
        },
      },
      { firstName: first, lastName: 'Quux' },
    )
    const me = expectOk(await a.get('/v1/account', u.token))
    for (const q of [
      first.toUpperCase(),
      first.slice(0, 5),
      me.userName,
      title,
      about.toUpperCase(),
      tag,
      `${tag}.js`,
      `${first} quux`,
      `  ${title}   ${tag} `,
    ]) {
      expect(ids(expectOk(await search(`search=${encodeURIComponent(q)}`))), q).toEqual([u.id])
    }
    expect(expectOk(await search(`search=${encodeURIComponent(`${first} nomatch`)}`)).total).toBe(0)
    // Description and contact are not searched.
    const hidden = word('hidden')
    await a.patch(
      '/v1/account/update',
      { profile: { bio: { description: hidden }, contact: { city: hidden } } },
      u.token,
    )
    expect(expectOk(await search(`search=${hidden}`)).total).toBe(0)
    // Query syntax characters are plain text.
    expect(expectOk(await search(`search=${encodeURIComponent("':*&|!()<-> \\")}`)).total).toBeGreaterThan(0)
    expect(ids(expectOk(await search(`search=${encodeURIComponent(`${first}&|!:*`)}`)))).toEqual([u.id])
  })

  it('restricts to accounts that signed up with the caller’s referral code with owner=true', async () => {
    const referrer = await createUser(t)
    const code = expectOk(await a.get('/v1/account', referrer.token)).referralCode
    const r1 = await signUp(t, { referralCode: code })
    t.clock.advance(1000)
    const r2 = await signUp(t, { referralCode: code })
    await signUp(t, { referralCode: code, verify: false })
    expect(ids(expectOk(await search('owner=true', referrer.token)))).toEqual([r2.id, r1.id])
    expect(expectOk(await search('owner=true', viewer.token)).total).toBe(0)
    expect(expectOk(await search('owner=false', referrer.token)).total).toBeGreaterThan(2)
  })

  it('never lists deleted or unverified accounts', async () => {
    const name = word('Gone')
    const gone = await person({}, { firstName: name })
    expect(expectOk(await search(`search=${name}`)).total).toBe(1)
    expectOk(await a.post('/v1/account/delete-account', { password: gone.password }, gone.token))
    expect(expectOk(await search(`search=${name}`)).total).toBe(0)
    const pending = word('Pending')
    await signUp(t, { firstName: pending, verify: false })
    expect(expectOk(await search(`search=${pending}`)).total).toBe(0)
  })

  it('lists a private profile to no one but its owner, and shows others only who it is', async () => {
    const name = word('Priv')
    const about = word('secretabout')
    const u = await person({}, { firstName: name })
    await t.database.db.updateTable('users').set({ isPrivate: true }).where('id', '=', u.id).execute()
    expectOk(
      await a.patch(
        '/v1/account/update',
        {
          profile: {
            contact: { city: 'Hidden city', phone: '+14155550123' },
            bio: { title: 'Hidden title' },
            talent: { about, availability: 'limited', tags: ['go'] },
          },
        },
        u.token,
      ),
    )
    expect(expectOk(await search(`search=${name}`)).total).toBe(0)
    expect(expectOk(await search(`search=${about}`)).total).toBe(0)
    const own = expectOk(await a.get(`/v1/account/user?search=${name}`, u.token))
    expect(own.data.map((x: { _id: string }) => x._id)).toEqual([u.id])
    expect(own.data[0].isPrivate).toBe(true)
    const pub = expectOk(await a.get(`/v1/account/user/${u.id}`, viewer.token))
    expect(pub.profile).toEqual({ talent: { tags: [], tagsIds: [] }, verified: false })
    expect(JSON.stringify(pub)).not.toMatch(/Hidden|14155550123|limited/)
    expect(JSON.stringify(pub)).not.toContain(about)
  })

  it('counts in the unfiltered total every listed account the caller may see, their own private one too', async () => {
    const total = async (token = viewer.token) => expectOk(await search('', token)).total
    const { n } = await t.database.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('deletedAt', 'is', null)
      .where('emailVerified', '=', true)
      .where('isPrivate', '=', false)
      .executeTakeFirstOrThrow()
    const before = await total()
    expect(before).toBe(Number(n))
    const u = await person()
    expect(await total()).toBe(before + 1)
    await signUp(t, { firstName: word('Unverified'), verify: false })
    expect(await total()).toBe(before + 1)
    expectOk(await a.patch('/v1/account/update', { isPrivate: true }, u.token))
    expect(await total()).toBe(before)
    expect(await total(u.token)).toBe(before + 1)
    expectOk(await a.patch('/v1/account/update', { isPrivate: false }, u.token))
    expect(await total()).toBe(before + 1)
    expectOk(await a.post('/v1/account/delete-account', { password: u.password }, u.token))
    expect(await total()).toBe(before)
  })

  it('shows the caller’s own bookmark of each user', async () => {
    const name = word('Book')
    const u = await person({}, { firstName: name })
    const other = await createUser(t)
    const bookmarkId = newId()
    await t.database.db
      .insertInto('bookmarks')
      .values({ id: bookmarkId, userId: viewer.id, type: 'user', reference: u.id, createdAt: new Date() })
      .execute()
    await t.database.db
      .insertInto('bookmarks')
      .values({ id: newId(), userId: other.id, type: 'collection', reference: u.id, createdAt: new Date() })
      .execute()
    const mine = expectOk(await search(`search=${name}`, viewer.token)).data[0]
    expect(mine).toMatchObject({ isBookmarked: true, bookmarkId })
    const theirs = expectOk(await search(`search=${name}`, other.token)).data[0]
    expect(theirs).toMatchObject({ isBookmarked: false, bookmarkId: '' })
  })

  it('needs a valid bearer token', async () => {
    expectError(await a.get('/v1/account/user'), 401, 'UNAUTHENTICATED')
    expectError(await a.get('/v1/account/user', 'garbage.token.value'), 401, 'UNAUTHENTICATED')
  })
})
