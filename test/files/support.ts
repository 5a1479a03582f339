// Helpers for the file tests: a local S3-compatible server, multipart bodies (in memory for small
// files, streamed for large ones), sample contents of each kind, downloads hashed as they arrive,
// and the app the storage suites run against, on either object store.
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import S3rver from 's3rver'
import { afterAll, beforeAll, expect } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

export { expectError } from '../helpers/errors.ts'

export const BUCKET = 'wp-test'

export interface S3Server {
  env: Record<string, string>
  endpoint: string
  /** keys of the objects under `prefix` */
  keys(prefix?: string): Promise<string[]>
  close(): Promise<void>
}

export async function startS3(): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'wp-s3rver-'))
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET }],
  })
  const { port } = await server.run()
  const endpoint = `http://127.0.0.1:${port}`
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  })
  return {
    endpoint,
    env: {
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    async keys(prefix = '') {
      const res = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }))
      return (res.Contents ?? []).map((o) => o.Key!)
    },
    async close() {
      client.destroy()
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}

/** Every file under `dir`, relative, recursively. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath ?? (d as unknown as { path: string }).path, d.name).slice(dir.length + 1))
}

export function tempDir(prefix = 'wp-files-') {
  return mkdtempSync(join(tmpdir(), prefix))
}

// ---- sample contents ----

/** A real 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)
export const GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64')
export const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
)
/** The start of a Linux executable. */
export const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), randomBytes(2000)])
/** JPEG magic followed by `size - 4` random bytes. */
export function jpegOf(size: number): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(size - 4)])
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')

// ---- multipart ----

export interface Part {
  name: string
  filename?: string
  contentType?: string
  data: Buffer | string
}

/** A complete multipart/form-data body in memory, for app.inject(). */
export function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----wptest${randomBytes(8).toString('hex')}`
  const chunks: Buffer[] = []
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`
    if (p.filename !== undefined) head += `; filename="${p.filename}"`
    head += '\r\n'
    if (p.contentType) head += `Content-Type: ${p.contentType}\r\n`
    chunks.push(Buffer.from(`${head}\r\n`, 'utf8'), Buffer.from(p.data), Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  }
}

/**
 * A generated file of `size` bytes: `head`, then random bytes made chunk by chunk, never held in
 * memory whole. `digest()` gives the SHA-256 of everything produced, once the stream has ended.
 */
export function generatedFile(size: number, head: Buffer) {
  const hash = createHash('sha256')
  let produced = 0
  const stream = new Readable({
    read() {
      if (produced >= size) return this.push(null)
      let chunk = produced === 0 ? head.subarray(0, size) : randomBytes(Math.min(256 * 1024, size - produced))
      if (produced + chunk.length > size) chunk = chunk.subarray(0, size - produced)
      produced += chunk.length
      hash.update(chunk)
      this.push(chunk)
    },
  })
  return { stream, digest: () => hash.digest('hex') }
}

export interface HttpResult {
  status: number
  headers: Record<string, string | string[] | undefined>
  json: any
}

/** POSTs one file as multipart/form-data over a real socket, streaming the file's bytes. */
export function uploadStream(
  baseUrl: string,
  path: string,
  token: string,
  file: { stream: Readable; filename: string; contentType: string },
): Promise<HttpResult> {
  const boundary = `----wptest${randomBytes(8).toString('hex')}`
  const url = new URL(path, baseUrl)
  async function* body() {
    yield Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
    )
    yield* file.stream
    yield Buffer.from(`\r\n--${boundary}--\r\n`)
  }
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          resolve({ status: res.statusCode!, headers: res.headers, json: text ? JSON.parse(text) : null })
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    Readable.from(body()).pipe(req)
  })
}

export interface Downloaded {
  status: number
  headers: Headers
  size: number
  sha256: string
  /** the body when it is small (under 1 MiB), for exact comparisons and error envelopes */
  body: Buffer | undefined
}

/** GETs a URL and hashes the body as it arrives. */
export async function download(url: string): Promise<Downloaded> {
  const res = await fetch(url)
  const hash = createHash('sha256')
  const small: Buffer[] = []
  let size = 0
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    const buf = Buffer.from(chunk)
    hash.update(buf)
    size += buf.length
    if (size <= 1024 * 1024) small.push(buf)
  }
  return {
    status: res.status,
    headers: res.headers,
    size,
    sha256: hash.digest('hex'),
    body: size <= 1024 * 1024 ? Buffer.concat(small) : undefined,
  }
}

// ---- the storage suites' app ----

export type Driver = 'disk' | 's3'

export const UUID_NAME = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}'
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

export function expectFileRecord(rec: any) {
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

/** The running app of a storage suite and its two users. */
export interface FileState {
  t: TestApp
  /** the app's address on a real socket */
  base: string
  s3: S3Server | undefined
  dataDir: string
  alice: TestUser
  bob: TestUser
}

export interface FileFixture {
  driver: Driver
  /** the bucket a File record names */
  bucket: string
  /** filled in by the fixture's beforeAll */
  state: FileState
  /** The record URL as reachable from the test (disk URLs carry the configured public address). */
  reachable(url: string): string
  upload(token: string | undefined, parts: Part[], path?: string): ReturnType<TestApp['req']>
  /** Uploads one file as `user` and answers its File record (the upload must succeed). */
  uploadFile(
    user: TestUser,
    data: Buffer | string,
    filename?: string,
    contentType?: string,
    path?: string,
  ): Promise<any>
  get(url: string, token?: string): ReturnType<TestApp['req']>
  /** Objects currently stored for `user` (disk files or S3 keys), temporary files included. */
  storedFor(user: TestUser): Promise<string[]>
}

/**
 * One app on the given object store for a test file (s3rver started for S3), listening on a real
 * socket with uploads of up to 60 MiB, and two users; closed and cleaned up after the file.
 */
export function fileFixture(driver: Driver): FileFixture {
  const state = {} as FileState

  const reachable = (url: string) => {
    if (driver === 's3') return url
    const u = new URL(url)
    return `${state.base}${u.pathname}${u.search}`
  }
  const upload = (token: string | undefined, parts: Part[], path = '/v1/upload') => {
    const { payload, headers } = multipart(parts)
    return state.t.req({ method: 'POST', url: path, payload, headers, token })
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
  const get = (url: string, token?: string) => state.t.req({ method: 'GET', url, token })
  const storedFor = async (user: TestUser): Promise<string[]> => {
    if (driver === 's3') {
      return [
        ...(await state.s3!.keys(`public/${user.id}/`)),
        ...(await state.s3!.keys(`private/${user.id}/`)),
      ]
    }
    const root = join(state.dataDir, 'files')
    return filesUnder(root).filter((f) => f.includes(user.id) || f.startsWith('.tmp'))
  }

  beforeAll(async () => {
    if (driver === 's3') state.s3 = await startS3()
    state.dataDir = tempDir()
    state.t = await createTestApp({
      env: state.s3?.env ?? {},
      config: { dataDir: state.dataDir, uploadMaxBytes: 60 * 1024 * 1024 },
    })
    state.base = await state.t.app.listen({ host: '127.0.0.1', port: 0 })
    state.alice = await createUser(state.t)
    state.bob = await createUser(state.t)
  })
  afterAll(async () => {
    await state.t?.close()
    await state.s3?.close()
    rmSync(state.dataDir, { recursive: true, force: true })
  })

  return {
    driver,
    bucket: driver === 'disk' ? 'local' : BUCKET,
    state,
    reachable,
    upload,
    uploadFile,
    get,
    storedFor,
  }
}
