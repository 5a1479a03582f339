// The file storage behaviour, run once per object store (disk and S3) by disk.test.ts and
// s3.test.ts; each of those runs on PGlite or PostgreSQL (TEST_DB).
import { rmSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  BUCKET,
  download,
  ELF,
  filesUnder,
  GIF,
  generatedFile,
  jpegOf,
  multipart,
  type Part,
  PDF,
  PNG,
  type S3Server,
  sha256,
  startS3,
  tempDir,
  uploadStream,
} from './support.ts'

type Driver = 'disk' | 's3'

const UUID_NAME = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}'
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

function expectError(res: { statusCode: number; json(): any }, status: number, code: string) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status)
  const body = res.json()
  expect(body.status).toBe('error')
  expect(typeof body.message).toBe('string')
  expect(body.data.code).toBe(code)
}

function expectFileRecord(rec: any) {
  expect(Object.keys(rec).sort()).toEqual(
    [
      '_id',
      'name',
      'uploaded_by',
      'type',
      'size',
      'bucket',
      'url',
      'meta',
      'status',
      'deletedAt',
      'createdAt',
      'updatedAt',
      '__v',
    ].sort(),
  )
  expect(rec._id).toMatch(/^[0-9a-f]{24}$/)
  expect(typeof rec.size).toBe('string')
  expect(rec.size).toMatch(/^\d+$/)
  expect(Object.keys(rec.meta)).toEqual(['originalName'])
  expect(rec.createdAt).toMatch(ISO)
  expect(rec.updatedAt).toMatch(ISO)
}

export function fileSuite(driver: Driver) {
  let t: TestApp
  let base: string
  let s3: S3Server | undefined
  let dataDir: string
  let alice: TestUser
  let bob: TestUser

  const bucket = driver === 'disk' ? 'local' : BUCKET

  /** The record URL as reachable from the test (disk URLs carry the configured public address). */
  const reachable = (url: string) => {
    if (driver === 's3') return url
    const u = new URL(url)
    return `${base}${u.pathname}${u.search}`
  }

  const upload = (token: string | undefined, parts: Part[], path = '/v1/upload') => {
    const { payload, headers } = multipart(parts)
    return t.req({ method: 'POST', url: path, payload, headers, token })
  }
  const uploadFile = async (
    user: TestUser,
    data: Buffer | string,
    filename = 'photo.png',
    contentType = 'image/png',
    path = '/v1/upload',
  ) => {
    const res = await upload(user.token, [{ name: 'file', filename, contentType, data }], path)
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data
  }
  const get = (url: string, token?: string) => t.req({ method: 'GET', url, token })

  /** Objects currently stored for `user` (disk files or S3 keys), temporary files included. */
  const storedFor = async (user: TestUser): Promise<string[]> => {
    if (driver === 's3') {
      return [...(await s3!.keys(`public/${user.id}/`)), ...(await s3!.keys(`private/${user.id}/`))]
    }
    const root = join(dataDir, 'files')
    return filesUnder(root).filter((f) => f.includes(user.id) || f.startsWith('.tmp'))
  }

  beforeAll(async () => {
    if (driver === 's3') s3 = await startS3()
    dataDir = tempDir()
    t = await createTestApp({
      env: s3?.env ?? {},
      config: { dataDir, uploadMaxBytes: 60 * 1024 * 1024 },
    })
    base = await t.app.listen({ host: '127.0.0.1', port: 0 })
    alice = await createUser(t)
    bob = await createUser(t)
  })
  afterAll(async () => {
    await t?.close()
    await s3?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  describe('POST /v1/upload (#31)', () => {
    it('stores a public file and answers the File record; the file is downloadable at its url', async () => {
      const res = await upload(alice.token, [
        { name: 'file', filename: 'photo.png', contentType: 'image/png', data: PNG },
      ])
      expect(res.statusCode, res.body).toBe(200)
      const body = res.json()
      expect(body.status).toBe('success')
      expect(body.message).toMatch(/upload/i)
      const rec = body.data
      expectFileRecord(rec)
      expect(rec).toMatchObject({
        uploaded_by: alice.id,
        type: 'image/png',
        size: String(PNG.length),
        bucket,
        meta: { originalName: 'photo.png' },
        status: true,
        deletedAt: null,
        __v: 0,
      })
      expect(rec.name).toMatch(new RegExp(`^public/${alice.id}/${UUID_NAME}\\.png$`))
      if (driver === 'disk') expect(rec.url).toBe(`${t.config.publicUrl}/v1/files/${rec.name}`)
      else expect(rec.url).toBe(`${s3!.endpoint}/${BUCKET}/${rec.name}`)

      const got = await download(reachable(rec.url))
      expect(got.status).toBe(200)
      expect(got.body!.equals(PNG)).toBe(true)
      expect(got.headers.get('content-type')).toBe('image/png')
      if (driver === 'disk') {
        expect(got.headers.get('x-content-type-options')).toBe('nosniff')
        expect(got.headers.get('content-security-policy')).toContain('sandbox')
      }
    })

    it('gives every upload its own generated name', async () => {
      const a = await uploadFile(alice, GIF, 'same.gif', 'image/gif')
      const b = await uploadFile(alice, GIF, 'same.gif', 'image/gif')
      expect(a.name).not.toBe(b.name)
      expect(a.type).toBe('image/gif')
    })

    it('requires a bearer token', async () => {
      const res = await upload(undefined, [
        { name: 'file', filename: 'a.png', contentType: 'image/png', data: PNG },
      ])
      expectError(res, 401, 'UNAUTHENTICATED')
    })

    it('answers 415 for a body that is not multipart, and 400 without the file field', async () => {
      const json = await t.req({
        method: 'POST',
        url: '/v1/upload',
        payload: { file: 'x' },
        token: alice.token,
      })
      expectError(json, 415, 'UNSUPPORTED_MEDIA_TYPE')
      const noFile = await upload(alice.token, [{ name: 'title', data: 'hello' }])
      expectError(noFile, 400, 'VALIDATION_ERROR')
      expect(noFile.json().data.errors[0].path).toBe('/file')
      const otherField = await upload(alice.token, [
        { name: 'document', filename: 'a.png', contentType: 'image/png', data: PNG },
      ])
      expectError(otherField, 400, 'VALIDATION_ERROR')
      const noBoundary = await t.req({
        method: 'POST',
        url: '/v1/upload',
        payload: 'garbage',
        headers: { 'content-type': 'multipart/form-data' },
        token: alice.token,
      })
      expectError(noBoundary, 400, 'VALIDATION_ERROR')
    })

    it('refuses two files and keeps neither', async () => {
      const user = await createUser(t)
      const res = await upload(user.token, [
        { name: 'file', filename: 'a.png', contentType: 'image/png', data: PNG },
        { name: 'file', filename: 'b.png', contentType: 'image/png', data: PNG },
      ])
      expectError(res, 400, 'VALIDATION_ERROR')
      expect(await storedFor(user)).toEqual([])
      const list = await get('/v1/upload/', user.token)
      expect(list.json().data.count).toBe(0)
    })

    it('refuses an empty file', async () => {
      const res = await upload(alice.token, [
        { name: 'file', filename: 'empty.txt', contentType: 'text/plain', data: Buffer.alloc(0) },
      ])
      expectError(res, 400, 'VALIDATION_ERROR')
    })
  })

  describe('content detection', () => {
    it('refuses an executable sent as image/png, and stores nothing', async () => {
      const user = await createUser(t)
      const res = await upload(user.token, [
        { name: 'file', filename: 'cat.png', contentType: 'image/png', data: ELF },
      ])
      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE')
      expect(await storedFor(user)).toEqual([])
    })

    it('stores a PNG sent as text/plain as image/png with a .png name', async () => {
      const rec = await uploadFile(alice, PNG, 'notes.txt', 'text/plain')
      expect(rec.type).toBe('image/png')
      expect(rec.name).toMatch(/\.png$/)
      expect(rec.meta.originalName).toBe('notes.txt')
    })

    it('recognises PDF, and text as text/plain, text/csv or application/json by content and extension', async () => {
      expect((await uploadFile(alice, PDF, 'doc.pdf', 'application/octet-stream')).type).toBe(
        'application/pdf',
      )
      const csv = await uploadFile(alice, 'a,b\n1,2\n', 'table.CSV', 'application/octet-stream')
      expect(csv.type).toBe('text/csv')
      expect(csv.name).toMatch(/\.csv$/)
      expect((await uploadFile(alice, '{"a": [1, 2]}', 'data.json', 'text/plain')).type).toBe(
        'application/json',
      )
      // A .json name on content that is not JSON-like stays plain text.
      const notJson = await uploadFile(alice, 'hello', 'x.json', 'application/json')
      expect(notJson.type).toBe('text/plain')
      expect(notJson.name).toMatch(/\.txt$/)
      // HTML is only ever text/plain: never served as a page.
      const html = await uploadFile(alice, '<html><script>alert(1)</script></html>', 'page.html', 'text/html')
      expect(html.type).toBe('text/plain')
      expect(html.name).toMatch(/\.txt$/)
    })

    it('refuses text with a NUL byte past the sniffed head, and other binary types', async () => {
      const user = await createUser(t)
      const sneaky = Buffer.concat([
        Buffer.from('a'.repeat(10_000)),
        Buffer.from([0]),
        Buffer.from('b'.repeat(100)),
      ])
      expectError(
        await upload(user.token, [
          { name: 'file', filename: 'a.txt', contentType: 'text/plain', data: sneaky },
        ]),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      )
      const xml = '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"></svg>'
      expectError(
        await upload(user.token, [
          { name: 'file', filename: 'a.svg', contentType: 'image/svg+xml', data: xml },
        ]),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      )
      expect(await storedFor(user)).toEqual([])
    })
  })

  describe('original names', () => {
    it('keeps only a sanitised base name in meta.originalName, never in the storage path', async () => {
      const cases: [string, string][] = [
        ['../../../../etc/passwd.png', 'passwd.png'],
        ['..\\..\\windows\\evil.png', 'evil.png'],
        ['..', 'file'],
        ['a\u0001b\u202Egnp.png', 'abgnp.png'],
      ]
      for (const [given, kept] of cases) {
        const rec = await uploadFile(alice, PNG, given)
        expect(rec.meta.originalName).toBe(kept)
        expect(rec.name).toMatch(new RegExp(`^public/${alice.id}/${UUID_NAME}\\.png$`))
      }
      const long = `${'n'.repeat(400)}.png`
      const rec = await uploadFile(alice, PNG, long)
      expect(Array.from(rec.meta.originalName as string)).toHaveLength(255)
      expect(rec.meta.originalName).toMatch(/\.png$/)
      if (driver === 'disk') {
        // Nothing was written outside the store's directory tree.
        expect(filesUnder(join(dataDir, 'files')).every((f) => /^(public|private)\//.test(f))).toBe(true)
      }
    })
  })

  describe('POST /v1/upload/private (#32) and GET /v1/upload/url/{id} (#35)', () => {
    it('stores a private file that is served only through a signed URL valid 300 seconds', async () => {
      const data = jpegOf(20_000)
      const rec = await uploadFile(alice, data, 'id-card.jpg', 'image/jpeg', '/v1/upload/private')
      expectFileRecord(rec)
      expect(rec.name).toMatch(new RegExp(`^private/${alice.id}/${UUID_NAME}\\.jpg$`))
      expect(rec.type).toBe('image/jpeg')

      const signed = await get(`/v1/upload/url/${rec._id}`, alice.token)
      expect(signed.statusCode, signed.body).toBe(200)
      expect(signed.json()).toEqual({
        status: 'success',
        message: expect.any(String),
        data: expect.any(String),
      })
      const url = new URL(signed.json().data)
      expect(url.pathname.endsWith(rec.name)).toBe(true)

      const ok = await download(reachable(url.href))
      expect(ok.status).toBe(200)
      expect(ok.sha256).toBe(sha256(data))

      if (driver === 'disk') {
        // Without, or with a wrong, signature: 403.
        const bare = await download(reachable(rec.url))
        expect(bare.status).toBe(403)
        expect(JSON.parse(bare.body!.toString()).data.code).toBe('FORBIDDEN')
        const sig = url.searchParams.get('signature')!
        const expires = Number(url.searchParams.get('expires'))
        const nowS = Math.floor(t.clock.now().getTime() / 1000)
        expect(expires - nowS).toBeGreaterThanOrEqual(299)
        expect(expires - nowS).toBeLessThanOrEqual(300)
        const tampered = [
          url.href.replace(sig, (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1)),
          url.href.replace(`expires=${expires}`, `expires=${expires + 3600}`),
          url.href.replace(/&signature=[^&]+/, ''),
        ]
        for (const bad of tampered) {
          const r = await download(reachable(bad))
          expect(r.status, bad).toBe(403)
          expect(JSON.parse(r.body!.toString()).data.code).toBe('FORBIDDEN')
        }
        // The signature of one file opens no other file.
        const other = await uploadFile(alice, PNG, 'x.png', 'image/png', '/v1/upload/private')
        const swapped = reachable(url.href.replace(rec.name, other.name))
        expect((await download(swapped)).status).toBe(403)

        // Valid until 300 s have passed, refused from then on.
        t.clock.advance(290_000)
        expect((await download(reachable(url.href))).status).toBe(200)
        t.clock.advance(11_000)
        const expired = await download(reachable(url.href))
        expect(expired.status).toBe(403)
        expect(JSON.parse(expired.body!.toString()).message).toMatch(/expired/)
        // A URL asked for now is valid again.
        const fresh = await get(`/v1/upload/url/${rec._id}`, alice.token)
        expect((await download(reachable(fresh.json().data))).status).toBe(200)
      } else {
        // SigV4 query signing for 300 seconds, dated by the service clock.
        expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256')
        expect(url.searchParams.get('X-Amz-Expires')).toBe('300')
        expect(url.searchParams.get('X-Amz-Credential')).toMatch(
          /^S3RVER\/\d{8}\/us-east-1\/s3\/aws4_request$/,
        )
        expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host')
        expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/)
        const date = url.searchParams.get('X-Amz-Date')!
        const clockDate = t.clock
          .now()
          .toISOString()
          .replace(/[-:]/g, '')
          .replace(/\.\d{3}/, '')
        expect(Math.abs(Number(date.slice(9, 15)) - Number(clockDate.slice(9, 15)))).toBeLessThanOrEqual(5)
        // A URL signed 301 s ago has expired (the store checks its own clock).
        t.clock.advance(-301_000)
        const old = await get(`/v1/upload/url/${rec._id}`, alice.token)
        t.clock.advance(301_000)
        const refused = await download(old.json().data)
        expect(refused.status).toBe(403)
        expect(refused.body!.toString()).toMatch(/expired/i)
      }
    })

    it('gives signed URLs only for the caller’s own files', async () => {
      const priv = await uploadFile(alice, PNG, 'p.png', 'image/png', '/v1/upload/private')
      const pub = await uploadFile(alice, PNG, 'q.png')
      expectError(await get(`/v1/upload/url/${priv._id}`, bob.token), 404, 'NOT_FOUND')
      expectError(await get(`/v1/upload/url/${pub._id}`, bob.token), 404, 'NOT_FOUND')
      expect((await get(`/v1/upload/url/${pub._id}`, alice.token)).statusCode).toBe(200)
      expectError(await get(`/v1/upload/url/${'0'.repeat(24)}`, alice.token), 404, 'NOT_FOUND')
      expectError(await get('/v1/upload/url/nope', alice.token), 400, 'VALIDATION_ERROR')
      expectError(await get(`/v1/upload/url/${priv._id}`), 401, 'UNAUTHENTICATED')
    })
  })

  describe('GET /v1/upload/{id} (#34)', () => {
    it('answers the caller’s own files and other users’ public files, never others’ private ones', async () => {
      const priv = await uploadFile(alice, PNG, 'p.png', 'image/png', '/v1/upload/private')
      const pub = await uploadFile(alice, PNG, 'q.png')
      const own = await get(`/v1/upload/${priv._id}`, alice.token)
      expect(own.statusCode).toBe(200)
      expect(own.json().data).toEqual(priv)
      expect((await get(`/v1/upload/${pub._id}`, bob.token)).json().data).toEqual(pub)
      expectError(await get(`/v1/upload/${priv._id}`, bob.token), 404, 'NOT_FOUND')
      expectError(await get(`/v1/upload/${'f'.repeat(24)}`, alice.token), 404, 'NOT_FOUND')
      expectError(await get('/v1/upload/123', alice.token), 400, 'VALIDATION_ERROR')
      expectError(await get(`/v1/upload/${pub._id}`), 401, 'UNAUTHENTICATED')
    })
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

  describe('streaming over a real socket', () => {
    it('round-trips a 50 MB file byte for byte', async () => {
      const size = 50 * 1024 * 1024
      const gen = generatedFile(size, jpegOf(16))
      const res = await uploadStream(base, '/v1/upload/private', alice.token, {
        stream: gen.stream,
        filename: 'big.jpg',
        contentType: 'image/jpeg',
      })
      expect(res.status, JSON.stringify(res.json)).toBe(200)
      const rec = res.json.data
      expect(rec.size).toBe(String(size))
      expect(rec.type).toBe('image/jpeg')
      const signed = (await get(`/v1/upload/url/${rec._id}`, alice.token)).json().data
      const got = await download(reachable(signed))
      expect(got.status).toBe(200)
      expect(got.size).toBe(size)
      expect(got.sha256).toBe(gen.digest())
    })

    it('leaves nothing behind when the client drops the connection mid-upload', async () => {
      const user = await createUser(t)
      const boundary = 'abortboundary'
      const req = request(new URL('/v1/upload', base), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${user.token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
      })
      const closed = new Promise((resolve) => req.on('close', resolve))
      req.on('error', () => {})
      req.write(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
      )
      req.write(jpegOf(2 * 1024 * 1024))
      // On disk the partial upload is visible as a temporary file while the client is connected.
      if (driver === 'disk') await expect.poll(() => storedFor(user), { timeout: 10_000 }).toHaveLength(1)
      req.destroy()
      await closed
      await expect.poll(() => storedFor(user), { timeout: 10_000 }).toEqual([])
      expect((await get('/v1/upload/', user.token)).json().data.count).toBe(0)
      // The service carries on.
      expect((await upload(user.token, [{ name: 'file', filename: 'a.png', data: PNG }])).statusCode).toBe(
        200,
      )
    })
  })

  describe('size limit', () => {
    let small: TestApp
    let smallBase: string
    const LIMIT = 64 * 1024
    beforeAll(async () => {
      small = await createTestApp({ env: s3?.env ?? {}, config: { dataDir, uploadMaxBytes: LIMIT } })
      smallBase = await small.app.listen({ host: '127.0.0.1', port: 0 })
    })
    afterAll(() => small?.close())

    it('accepts exactly the limit and answers 413 one byte over, storing nothing', async () => {
      const user = await createUser(small)
      const send = (data: Buffer) => {
        const { payload, headers } = multipart([
          { name: 'file', filename: 'x.jpg', contentType: 'image/jpeg', data },
        ])
        return small.req({ method: 'POST', url: '/v1/upload', payload, headers, token: user.token })
      }
      const atLimit = await send(jpegOf(LIMIT))
      expect(atLimit.statusCode, atLimit.body).toBe(200)
      expect(atLimit.json().data.size).toBe(String(LIMIT))
      const over = await send(jpegOf(LIMIT + 1))
      expectError(over, 413, 'PAYLOAD_TOO_LARGE')
      const stored = await storedFor(user)
      expect(stored).toEqual([atLimit.json().data.name])
      expect(
        (await small.req({ method: 'GET', url: '/v1/upload/', token: user.token })).json().data.count,
      ).toBe(1)
    })

    it('stops a large streamed upload with 413 and removes what was written', async () => {
      const user = await createUser(small)
      const gen = generatedFile(8 * 1024 * 1024, jpegOf(16))
      const res = await uploadStream(smallBase, '/v1/upload', user.token, {
        stream: gen.stream,
        filename: 'huge.jpg',
        contentType: 'image/jpeg',
      })
      expect(res.status).toBe(413)
      expect(res.json).toMatchObject({ status: 'error', data: { code: 'PAYLOAD_TOO_LARGE', limit: LIMIT } })
      expect(await storedFor(user)).toEqual([])
      expect(
        (await small.req({ method: 'GET', url: '/v1/upload/', token: user.token })).json().data.count,
      ).toBe(0)
    })
  })
}
