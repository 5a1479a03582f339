// Private files and who may read which file: a private upload is served only through a URL
// signed for 300 seconds (by the service on disk, SigV4 on S3), given to its owner alone; a File
// record is answered to its owner, and to others only when public.
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'
import {
  download,
  expectError,
  expectFileRecord,
  type FileFixture,
  jpegOf,
  PNG,
  sha256,
  UUID_NAME,
} from './support.ts'

export function signedUrlSuite(files: FileFixture) {
  const { driver, reachable, uploadFile, get } = files
  let t: TestApp
  let alice: TestUser
  let bob: TestUser
  beforeAll(() => {
    ;({ t, alice, bob } = files.state)
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
        // The URL names its signing key; a key id the service does not accept is refused by name,
        // and a URL without one is refused like any other without a valid signature.
        const kid = url.searchParams.get('kid')!
        expect(kid).toMatch(/^[A-Za-z0-9_-]{8}$/)
        const unknownKid = await download(reachable(url.href.replace(`kid=${kid}`, 'kid=AAAAAAAA')))
        expect(unknownKid.status).toBe(403)
        expect(JSON.parse(unknownKid.body!.toString()).data.code).toBe('SIGNING_KEY_UNKNOWN')
        const noKid = await download(reachable(url.href.replace(`&kid=${kid}`, '')))
        expect(noKid.status).toBe(403)
        expect(JSON.parse(noKid.body!.toString()).data.code).toBe('FORBIDDEN')
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
}
