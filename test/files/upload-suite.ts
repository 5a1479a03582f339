// Uploading a public file: the File record, who may upload, what the body must hold, which
// contents are accepted and under which type, and what is kept of the client's file name.
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  BUCKET,
  download,
  ELF,
  expectError,
  expectFileRecord,
  type FileFixture,
  filesUnder,
  GIF,
  PDF,
  PNG,
  type S3Server,
  UUID_NAME,
} from './support.ts'

export function uploadSuite(files: FileFixture) {
  const { driver, bucket, reachable, upload, uploadFile, get, storedFor } = files
  let t: TestApp
  let s3: S3Server | undefined
  let dataDir: string
  let alice: TestUser
  beforeAll(() => {
    ;({ t, s3, dataDir, alice } = files.state)
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
}
