// Uploads over a real socket: a large file streamed through and back unchanged, a dropped
// connection that leaves nothing behind, and the size limit enforced while the body arrives.
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  download,
  expectError,
  type FileFixture,
  generatedFile,
  jpegOf,
  multipart,
  PNG,
  type S3Server,
  uploadStream,
} from './support.ts'

export function streamingSuite(files: FileFixture) {
  const { driver, reachable, upload, get, storedFor } = files
  let t: TestApp
  let base: string
  let s3: S3Server | undefined
  let dataDir: string
  let alice: TestUser
  beforeAll(() => {
    ;({ t, base, s3, dataDir, alice } = files.state)
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
