// GET /v1/account/user/{id} (#39) answered from the read cache: no query on a repeated read, and
// every change to what it shows (profile, tags, achievements, privacy, verification, deletion)
// seen on the next read; what a private profile hides from others never reaches them, though the
// owner's own read of it comes from the same entry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
afterAll(async () => {
  await t?.close()
})

const read = async (id: string, token = viewer.token) =>
  expectOk(await a.get(`/v1/account/user/${id}`, token))
const queries = async (fn: () => Promise<unknown>) => {
  const before = t.database.queryCount()
  await fn()
  return t.database.queryCount() - before
}

describe('the public profile read cache', () => {
  it('answers a repeated read with no query, and a profile update on the next read', async () => {
    const owner = await createUser(t, { firstName: 'Cached' })
    expect((await read(owner.id)).firstName).toBe('Cached')
    expect(await queries(() => read(owner.id))).toBe(0)
    expectOk(
      await a.patch(
        '/v1/account/update',
        { firstName: 'Renamed', profile: { talent: { availability: 'busy', tags: ['Go', 'Rust'] } } },
        owner.token,
      ),
    )
    const after = await read(owner.id)
    expect(after.firstName).toBe('Renamed')
    expect(after.profile.talent.availability).toBe('busy')
    expect(after.profile.talent.tagsIds.map((tag: { name: string }) => tag.name)).toEqual(['Go', 'Rust'])
  })

  it('shows an achievement written after the profile was cached', async () => {
    const referrer = await createUser(t)
    expect((await read(referrer.id)).achievements).toEqual([])
    const me = expectOk(await a.get('/v1/account', referrer.token))
    await signUp(t, { referralCode: me.referralCode })
    expect((await read(referrer.id)).achievements).toMatchObject([{ type: 'referral', total: '1' }])
    // A write to the achievements alone (no account row changes) is seen too.
    await t.database.db
      .updateTable('achievements')
      .set({ total: '7' })
      .where('owner', '=', referrer.id)
      .execute()
    expect((await read(referrer.id)).achievements).toMatchObject([{ type: 'referral', total: '7' }])
  })

  it('hides a private profile’s talent from others but not from its owner, from one entry', async () => {
    const owner = await createUser(t)
    expectOk(
      await a.patch(
        '/v1/account/update',
        { profile: { talent: { availability: 'available', tags: ['Design'] } } },
        owner.token,
      ),
    )
    expect((await read(owner.id)).profile.talent.tagsIds).toHaveLength(1)
    expectOk(await a.patch('/v1/account/update', { isPrivate: true }, owner.token))
    const seen = await read(owner.id)
    expect(seen.isPrivate).toBe(true)
    expect(seen.profile.talent).toEqual({ tags: [], tagsIds: [] })
    expect(seen.achievements).toEqual([])
    // The owner's read after the viewer's comes from the same cached entry, with everything.
    expect(
      await queries(async () => {
        const own = await read(owner.id, owner.token)
        expect(own.profile.talent.tagsIds.map((tag: { name: string }) => tag.name)).toEqual(['Design'])
      }),
    ).toBe(0)
    // And the viewer's next read still hides it.
    expect((await read(owner.id)).profile.talent).toEqual({ tags: [], tagsIds: [] })
  })

  it('forgets a 404 once the account verifies its email, and answers 404 once it is deleted', async () => {
    const pending = await signUp(t, { verify: false })
    expectError(await a.get(`/v1/account/user/${pending.id}`, viewer.token), 404, 'NOT_FOUND')
    expect(
      await queries(async () =>
        expectError(await a.get(`/v1/account/user/${pending.id}`, viewer.token), 404, 'NOT_FOUND'),
      ),
    ).toBe(0)
    await t.database.db
      .updateTable('users')
      .set({ emailVerified: true })
      .where('id', '=', pending.id)
      .execute()
    expect((await read(pending.id))._id).toBe(pending.id)
    const gone = await createUser(t)
    await read(gone.id)
    expectOk(await a.post('/v1/account/delete-account', { password: gone.password }, gone.token))
    expectError(await a.get(`/v1/account/user/${gone.id}`, viewer.token), 404, 'NOT_FOUND')
  })
})
