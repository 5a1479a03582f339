// Another user's profile, GET /v1/account/user/{id}: only the public form, only of live accounts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { api, expectError, expectOk, profileUpdate, signUp } from './helpers.ts'

let t: TestApp
let a: ReturnType<typeof api>
beforeAll(async () => {
  t = await createTestApp()
  a = api(t)
})
afterAll(() => t.close())

const PUBLIC_KEYS = [
  '_id',
  'achievements',
  'firstName',
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
]

const update = profileUpdate(() => t)

describe('GET /v1/account/user/{id} (#39)', () => {
  it('returns exactly the public form of another user', async () => {
    const owner = await createUser(t, { firstName: 'Pub', lastName: 'Lic' })
    const viewer = await createUser(t)
    expectOk(
      await update(owner, {
        profile: {
          contact: { phone: '+14155550123', city: 'SF' },
          bio: { title: 'Secret title' },
          talent: { about: 'about me', availability: 'available', tags: ['Rust'] },
        },
        socials: { github: 'https://github.com/pub' },
      }),
    )
    const data = expectOk(await a.get(`/v1/account/user/${owner.id}`, viewer.token))
    expect(Object.keys(data).sort()).toEqual(PUBLIC_KEYS)
    expect(data).toMatchObject({
      _id: owner.id,
      firstName: 'Pub',
      lastName: 'Lic',
      role: 'user',
      type: 'recipient',
      isPrivate: false,
      score: 0,
      socket: { status: 'OFFLINE' },
      achievements: [],
      kyc: false,
      kycStatus: null,
    })
    expect(data.profileCompleteness).toBeGreaterThan(0)
    expect(Object.keys(data.profile).sort()).toEqual(['talent', 'verified'])
    expect(data.profile.talent).toEqual({
      availability: 'available',
      tags: ['Rust'],
      tagsIds: [expect.objectContaining({ key: 'rust', name: 'Rust' })],
    })
    const text = JSON.stringify(data)
    for (const secret of [owner.email, '+14155550123', 'Secret title', 'about me', 'github.com'])
      expect(text).not.toContain(secret)
  })

  it('is 404 for unknown, unverified and deleted accounts and 400 for a malformed id', async () => {
    const viewer = await createUser(t)
    expectError(await a.get('/v1/account/user/0123456789abcdef01234567', viewer.token), 404, 'NOT_FOUND')
    expectError(await a.get('/v1/account/user/not-an-id', viewer.token), 400, 'VALIDATION_ERROR')
    const pending = await signUp(t, { verify: false })
    expectError(await a.get(`/v1/account/user/${pending.id}`, viewer.token), 404, 'NOT_FOUND')
    const gone = await createUser(t)
    expectOk(await a.post('/v1/account/delete-account', { password: gone.password }, gone.token))
    expectError(await a.get(`/v1/account/user/${gone.id}`, viewer.token), 404, 'NOT_FOUND')
  })
})
