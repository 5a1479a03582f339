// The account's own profile: GET /v1/account and PATCH /v1/account/update.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { api, expectError, expectOk, FULL_KEYS, ISO, profileUpdate, word } from './helpers.ts'

let t: TestApp
let a: ReturnType<typeof api>
beforeAll(async () => {
  t = await createTestApp()
  a = api(t)
})
afterAll(() => t.close())

const TAG_KEYS = [
  '__v',
  '_id',
  'categories',
  'color',
  'createdAt',
  'entryCount',
  'isParent',
  'key',
  'name',
  'type',
  'updatedAt',
]

const update = profileUpdate(() => t)

async function tagCount(key: string) {
  const row = await t.database.db
    .selectFrom('tags')
    .select('entryCount')
    .where('key', '=', key)
    .executeTakeFirst()
  return row?.entryCount
}

describe('GET /v1/account (#36)', () => {
  it('returns the full form with every field present and typed', async () => {
    const u = await createUser(t, { firstName: 'Ada', lastName: 'Lovelace' })
    const data = expectOk(await a.get('/v1/account', u.token))
    expect(Object.keys(data).sort()).toEqual(FULL_KEYS)
    expect(data).toMatchObject({
      _id: u.id,
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: u.email,
      status: true,
      emailVerified: true,
      role: 'user',
      type: 'recipient',
      profile: { contact: {}, bio: {}, talent: { tags: [], tagsIds: [] }, verified: false },
      isPrivate: false,
      score: 0,
      twoFa: { type: '', status: false, securityQuestion: '' },
      profileCompleteness: 0,
      socket: { status: 'OFFLINE' },
      isUserNameUpdated: false,
      web3Onboard: false,
      accountType: 'email',
      bgImage: {},
      profileImage: {},
      meta: { pointScore: 0 },
      socials: {},
      achievements: [],
      isVerified: true,
      kyc: false,
      kycStatus: null,
    })
    expect(typeof data.walletGenerated).toBe('boolean')
    expect(data.referralCode).toMatch(/^[A-Z0-9]{8}$/)
    expect(data.userName).toMatch(/^adalovelace\d+$/)
    for (const k of ['emailVerifiedAt', 'loggedInAt', 'createdAt', 'updatedAt']) expect(data[k]).toMatch(ISO)
    expect(typeof data.__v).toBe('number')
    expect(JSON.stringify(data)).not.toMatch(/password|secret|hash/i)
  })
})

describe('PATCH /v1/account/update (#37)', () => {
  it('changes only the sent fields and merges nested objects sub-field by sub-field', async () => {
    const u = await createUser(t)
    let data = expectOk(
      await update(u, {
        firstName: ' Grace ',
        profile: {
          contact: { country: 'Nigeria', city: 'Lagos' },
          bio: { title: 'Engineer' },
          talent: { about: 'I build things', availability: 'limited' },
        },
        socials: { github: 'https://github.com/grace' },
      }),
    )
    expect(data.firstName).toBe('Grace')
    expect(data.lastName).toBe('User')
    const res = await update(u, {
      profile: { contact: { phone: '+44 20 7946 0958' }, bio: { description: 'Long bio' } },
      socials: { twitter: 'https://x.com/grace' },
    })
    expect(res.json().message).toBe('Profile updated')
    data = expectOk(res)
    expect(data.profile.contact).toEqual({ country: 'Nigeria', city: 'Lagos', phone: '+442079460958' })
    expect(data.profile.bio).toEqual({ title: 'Engineer', description: 'Long bio' })
    expect(data.profile.talent).toEqual({
      about: 'I build things',
      availability: 'limited',
      tags: [],
      tagsIds: [],
    })
    expect(data.socials).toEqual({ github: 'https://github.com/grace', twitter: 'https://x.com/grace' })
    expect(Object.keys(data).sort()).toEqual(FULL_KEYS)
    expect(data.email).toBe(u.email)
    // The same state is what GET returns.
    expect(expectOk(await a.get('/v1/account', u.token))).toEqual(data)
  })

  it('clears a text field sent as an empty string', async () => {
    const u = await createUser(t)
    expectOk(await update(u, { profile: { contact: { city: 'Paris', state: 'IDF' } } }))
    const data = expectOk(await update(u, { profile: { contact: { city: '' } } }))
    expect(data.profile.contact).toEqual({ state: 'IDF' })
  })

  it('accepts an empty body and changes nothing', async () => {
    const u = await createUser(t)
    const before = expectOk(await a.get('/v1/account', u.token))
    const data = expectOk(await update(u, {}))
    expect(data.profile).toEqual(before.profile)
    expect(data.firstName).toBe(before.firstName)
  })

  it('refuses the email with a clear message', async () => {
    const u = await createUser(t)
    const res = await update(u, { email: 'new@example.com' })
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(res.json().message).toMatch(/email cannot be changed/i)
    expect(res.json().data.errors).toEqual([{ path: '/email', message: expect.stringMatching(/email/) }])
    expect(expectOk(await a.get('/v1/account', u.token)).email).toBe(u.email)
  })

  it.each([
    [{ role: 'admin' }, '/role'],
    [{ userName: 'x' }, '/userName'],
    [{ profile: { verified: true } }, '/profile/verified'],
    [{ profile: { contact: { zip: '1' } } }, '/profile/contact/zip'],
    [{ socials: { facebook: 'https://facebook.com/x' } }, '/socials/facebook'],
  ])('refuses a field outside the updatable list: %j', async (body, path) => {
    const u = await createUser(t)
    const res = await update(u, body)
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(res.json().data.errors[0].path).toBe(path)
  })

  it.each([
    [{ firstName: '' }],
    [{ firstName: '   ' }],
    [{ firstName: 'x'.repeat(101) }],
    [{ firstName: 5 }],
    [{ profile: { contact: { city: 'x'.repeat(101) } } }],
    [{ profile: { contact: { address: 'x'.repeat(301) } } }],
    [{ profile: { bio: { title: 'x'.repeat(151) } } }],
    [{ profile: { bio: { description: 'x'.repeat(2001) } } }],
    [{ profile: { talent: { about: 'x'.repeat(5001) } } }],
    [{ profile: { talent: { availability: 'away' } } }],
    [{ profile: { talent: { tags: 'react' } } }],
    [{ profile: { talent: { tags: [''] } } }],
    [{ profile: { talent: { tags: ['x'.repeat(51)] } } }],
    [{ profile: { talent: { tags: Array.from({ length: 31 }, (_, i) => `t${i}`) } } }],
    [{ profile: { talent: { tags: ['!!!'] } } }],
    [{ profile: null }],
    [{ socials: { website: 'x'.repeat(301) } }],
  ])('refuses invalid values with 400 (case %#)', async (body) => {
    const u = await createUser(t)
    expectError(await update(u, body), 400, 'VALIDATION_ERROR')
  })

  it.each(['12345', '2079460958', '+1 555', '+999 123456789', 'phone', '+44 20 7946 0958 ext'])(
    'refuses the phone %s',
    async (phone) => {
      const u = await createUser(t)
      const res = await update(u, { profile: { contact: { phone } } })
      expectError(res, 400, 'VALIDATION_ERROR')
      expect(res.json().data.errors[0].path).toBe('/profile/contact/phone')
    },
  )

  it.each([
    ['github', 'https://gitlab.com/ada'],
    ['github', 'https://github.com/'],
    ['github', 'https://github.com.evil.example/ada'],
    ['github', 'github.com/ada'],
    ['github', 'ftp://github.com/ada'],
    ['twitter', 'https://twitter.org/ada'],
    ['twitter', 'https://nottwitter.com/ada'],
    ['linkedin', 'https://linkedin.evil.com/in/ada'],
    ['website', 'javascript:alert(1)'],
    ['website', 'not a url'],
    ['website', 'https://user:pw@example.com'],
  ])('refuses the %s link %s', async (platform, url) => {
    const u = await createUser(t)
    const res = await update(u, { socials: { [platform]: url } })
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(res.json().data.errors[0].path).toBe(`/socials/${platform}`)
  })

  it('accepts links on each platform’s domain and subdomains', async () => {
    const u = await createUser(t)
    const socials = {
      github: 'https://www.github.com/ada',
      twitter: 'https://twitter.com/ada',
      linkedin: 'https://uk.linkedin.com/in/ada',
      website: 'http://ada.example.org/about',
    }
    expect(expectOk(await update(u, { socials })).socials).toEqual(socials)
    expect(expectOk(await update(u, { socials: { twitter: 'https://x.com/ada' } })).socials.twitter).toBe(
      'https://x.com/ada',
    )
  })

  it('saves tags as Tag objects in order, one per key, with exact entry counts', async () => {
    const k1 = word('tag')
    const k2 = word('tag')
    const k3 = word('tag')
    const u1 = await createUser(t)
    const u2 = await createUser(t)
    const data = expectOk(
      await update(u1, { profile: { talent: { tags: [k1.toUpperCase(), ` ${k1} `, k2, 'Solidity'] } } }),
    )
    expect(data.profile.talent.tags).toEqual([k1.toUpperCase(), k2, 'Solidity'])
    expect(data.profile.talent.tagsIds.map((x: any) => x.key)).toEqual([k1, k2, 'solidity'])
    for (const tag of data.profile.talent.tagsIds) {
      expect(Object.keys(tag).sort()).toEqual(TAG_KEYS)
      expect(tag.color).toMatch(/^#[0-9a-f]{6}$/)
      expect(tag.isParent).toBe(false)
      expect(tag.type).toBe('tags')
      expect(tag.createdAt).toMatch(ISO)
    }
    // Solidity is placed under the seeded Blockchain parent.
    const blockchain = await t.database.db
      .selectFrom('tags')
      .select('id')
      .where('key', '=', 'blockchain')
      .executeTakeFirstOrThrow()
    expect(data.profile.talent.tagsIds[2].categories).toEqual([blockchain.id])
    expect(await tagCount(k1)).toBe(1)
    expectOk(await update(u2, { profile: { talent: { tags: [k1] } } }))
    expect(await tagCount(k1)).toBe(2)
    // Sending the same set again changes no count; a new set moves them.
    expectOk(await update(u1, { profile: { talent: { tags: [k1, k2, 'solidity'] } } }))
    expect(await tagCount(k1)).toBe(2)
    const after = expectOk(await update(u1, { profile: { talent: { tags: [k2, k3] } } }))
    expect(after.profile.talent.tagsIds.map((x: any) => x.key)).toEqual([k2, k3])
    expect([await tagCount(k1), await tagCount(k2), await tagCount(k3)]).toEqual([1, 1, 1])
    // An update without tags keeps them.
    const kept = expectOk(await update(u1, { profile: { talent: { about: 'x' } } }))
    expect(kept.profile.talent.tags).toEqual([k2, k3])
    const cleared = expectOk(await update(u1, { profile: { talent: { tags: [] } } }))
    expect(cleared.profile.talent.tags).toEqual([])
    expect(cleared.profile.talent.tagsIds).toEqual([])
    expect([await tagCount(k2), await tagCount(k3)]).toEqual([0, 0])
  })

  it('recomputes the profile completeness on every update', async () => {
    const u = await createUser(t)
    // 3 of 14 fields
    let data = expectOk(
      await update(u, {
        profile: { contact: { city: 'Rome' }, bio: { title: 'Dev' } },
        socials: { website: 'https://a.example' },
      }),
    )
    expect(data.profileCompleteness).toBe(21)
    data = expectOk(
      await update(u, {
        profile: {
          contact: { country: 'Italy', state: 'Lazio', address: 'Via 1', phone: '+393123456789' },
          bio: { description: 'Bio' },
          talent: { about: 'About', availability: 'available', tags: ['python'] },
        },
        socials: {
          github: 'https://github.com/u',
          twitter: 'https://twitter.com/u',
          linkedin: 'https://linkedin.com/in/u',
        },
      }),
    )
    expect(data.profileCompleteness).toBe(100)
    data = expectOk(await update(u, { profile: { talent: { tags: [] } } }))
    expect(data.profileCompleteness).toBe(93)
    const row = await t.database.db
      .selectFrom('users')
      .select('profileCompleteness')
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow()
    expect(row.profileCompleteness).toBe(93)
  })

  it('keeps concurrent updates of one account consistent', async () => {
    const u = await createUser(t)
    const tag = word('conc')
    await Promise.all([
      update(u, { profile: { contact: { city: 'A' }, talent: { tags: [tag] } } }),
      update(u, { profile: { contact: { country: 'B' }, talent: { tags: [tag] } } }),
    ])
    const data = expectOk(await a.get('/v1/account', u.token))
    expect(data.profile.contact).toEqual({ city: 'A', country: 'B' })
    expect(await tagCount(tag)).toBe(1)
  })
})
