// A user's File records: the paged, filtered list, deletion (record, object and every URL), and
// the service other modules use to embed files in their own records.
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { download, expectError, expectFileRecord, type FileFixture, ISO, PDF, PNG } from './support.ts'

export function recordsSuite(files: FileFixture) {
  const { reachable, uploadFile, get, storedFor } = files
  let t: TestApp
  let alice: TestUser
  let bob: TestUser
  beforeAll(() => {
    ;({ t, alice, bob } = files.state)
  })

  describe('GET /v1/upload/ (#33)', () => {
    it('lists the caller’s files newest first with count, pages, page and limit, and filters', async () => {
      const carol = await createUser(t)
      const made = []
      for (let i = 0; i < 5; i++) made.push(await uploadFile(carol, PNG, `p${i}.png`))
      made.push(await uploadFile(carol, PDF, 'd.pdf', 'application/pdf', '/v1/upload/private'))
      made.push(await uploadFile(carol, 'x,y\n', 'd.csv', 'text/csv', '/v1/upload/private'))
      await uploadFile(bob, PNG, 'not-carols.png')

      const all = await get('/v1/upload/', carol.token)
      expect(all.statusCode).toBe(200)
      const body = all.json()
      expect(body.status).toBe('success')
      expect(body.data).toEqual({
        count: 7,
        pages: 1,
        page: 1,
        limit: 12,
        data: [...made].reverse(),
      })

      const page2 = (await get('/v1/upload/?page=2&limit=3', carol.token)).json().data
      expect(page2).toMatchObject({ count: 7, pages: 3, page: 2, limit: 3 })
      expect(page2.data.map((f: any) => f._id)).toEqual([made[3]._id, made[2]._id, made[1]._id])
      const beyond = (await get('/v1/upload/?page=9&limit=3', carol.token)).json().data
      expect(beyond).toMatchObject({ count: 7, pages: 3, page: 9, data: [] })
      // A page and its count are one statement.
      const before = t.database.queryCount()
      expect((await get('/v1/upload/?page=2&limit=3', carol.token)).json().data.count).toBe(7)
      expect(t.database.queryCount() - before).toBe(1)

      const images = (await get('/v1/upload/?type=image/', carol.token)).json().data
      expect(images.count).toBe(5)
      expect(images.data.every((f: any) => f.type === 'image/png')).toBe(true)
      expect((await get('/v1/upload/?type=application/pdf', carol.token)).json().data.count).toBe(1)
      expect((await get('/v1/upload/?type=text', carol.token)).json().data.count).toBe(1)
      const priv = (await get('/v1/upload/?visibility=private', carol.token)).json().data
      expect(priv.count).toBe(2)
      expect(priv.data.every((f: any) => f.name.startsWith('private/'))).toBe(true)
      expect(
        (await get('/v1/upload/?visibility=public&type=application/', carol.token)).json().data.count,
      ).toBe(0)

      expectError(await get('/v1/upload/?limit=101', carol.token), 400, 'VALIDATION_ERROR')
      expectError(await get('/v1/upload/?page=0', carol.token), 400, 'VALIDATION_ERROR')
      expectError(await get('/v1/upload/?visibility=secret', carol.token), 400, 'VALIDATION_ERROR')
      expectError(await get('/v1/upload/?type=image%25', carol.token), 400, 'VALIDATION_ERROR')
      expectError(await get('/v1/upload/?sort=name', carol.token), 400, 'VALIDATION_ERROR')
      expectError(await get('/v1/upload/'), 401, 'UNAUTHENTICATED')
      // The same list without the trailing slash.
      expect((await get('/v1/upload?visibility=private', carol.token)).json().data).toEqual(priv)
    })
  })

  describe('DELETE /v1/upload/{id}', () => {
    it('marks the record deleted, removes the object, and stops every URL and listing', async () => {
      const dave = await createUser(t)
      const pub = await uploadFile(dave, PNG, 'a.png')
      const priv = await uploadFile(dave, PNG, 'b.png', 'image/png', '/v1/upload/private')
      const signed = (await get(`/v1/upload/url/${priv._id}`, dave.token)).json().data

      expectError(
        await t.req({ method: 'DELETE', url: `/v1/upload/${pub._id}`, token: bob.token }),
        403,
        'FORBIDDEN',
      )
      expectError(
        await t.req({ method: 'DELETE', url: `/v1/upload/${priv._id}`, token: bob.token }),
        404,
        'NOT_FOUND',
      )
      expectError(await t.req({ method: 'DELETE', url: `/v1/upload/${priv._id}` }), 401, 'UNAUTHENTICATED')

      for (const rec of [pub, priv]) {
        const res = await t.req({ method: 'DELETE', url: `/v1/upload/${rec._id}`, token: dave.token })
        expect(res.statusCode, res.body).toBe(200)
        const data = res.json().data
        expectFileRecord(data)
        expect(data).toMatchObject({ _id: rec._id, status: false, __v: 1 })
        expect(data.deletedAt).toMatch(ISO)
      }
      await t.drain()
      expect(await storedFor(dave)).toEqual([])
      expect((await download(reachable(pub.url))).status).toBe(404)
      expect((await download(reachable(signed))).status).toBe(404)
      expectError(await get(`/v1/upload/${pub._id}`, dave.token), 404, 'NOT_FOUND')
      expectError(await get(`/v1/upload/url/${priv._id}`, dave.token), 404, 'NOT_FOUND')
      expect((await get('/v1/upload/', dave.token)).json().data.count).toBe(0)
      expectError(
        await t.req({ method: 'DELETE', url: `/v1/upload/${pub._id}`, token: dave.token }),
        404,
        'NOT_FOUND',
      )
    })
  })

  describe('services.files (for records that embed files)', () => {
    it('summarises live files and checks ownership', async () => {
      const files = t.app.services.files
      const db = t.database.db
      const a = await uploadFile(alice, PNG, 'avatar.png')
      const b = await uploadFile(alice, PDF, 'cv.pdf', 'application/pdf', '/v1/upload/private')
      const other = await uploadFile(bob, PNG, 'bob.png')
      const map = await files.summaries(db, [a._id, b._id, 'not-an-id', '0'.repeat(24)])
      expect([...map.keys()].sort()).toEqual([a._id, b._id].sort())
      expect(map.get(a._id)).toEqual({
        _id: a._id,
        name: a.name,
        type: 'image/png',
        size: a.size,
        url: a.url,
      })

      const owned = await files.assertOwned(db, alice.id, [a._id, b._id, a._id])
      expect(owned.size).toBe(2)
      await expect(
        files.assertOwned(db, alice.id, [a._id, other._id], { path: '/attachments' }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { errors: [{ path: '/attachments', message: expect.any(String) }] },
      })
      await expect(files.assertOwned(db, alice.id, [b._id], { visibility: 'public' })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      })
      await expect(files.assertOwned(db, alice.id, ['nope'])).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      })
    })
  })
}
