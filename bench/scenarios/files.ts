// File storage: upload and download throughput of a 100 MB file over a real socket, and the
// service's peak memory during the upload (it streams to the store, so RSS must stay within
// 64 MB of idle). The runner sets UPLOAD_MAX_BYTES to 200 MiB so a 100 MB file is accepted.
// The upload client runs in the same process, so the RSS figure includes it: an upper bound.
import { randomBytes } from 'node:crypto'
import { request } from 'node:http'
import { Readable } from 'node:stream'
import type { BenchContext, Scenario } from '../lib.ts'

const MB = 1024 * 1024
const SIZE = 100 * MB
const RSS_BUDGET_MB = 64

/** `size` bytes starting with JPEG magic, produced in 256 KiB chunks from one reused block. */
function generated(size: number): Readable {
  const block = randomBytes(256 * 1024)
  block.set([0xff, 0xd8, 0xff, 0xe0], 0)
  let sent = 0
  return new Readable({
    read() {
      if (sent >= size) return this.push(null)
      const n = Math.min(block.length, size - sent)
      // A fresh copy per chunk: the stream may hold several chunks at once.
      this.push(Buffer.from(block.subarray(0, n)))
      sent += n
      if (sent === n) block.set(randomBytes(4), 4)
    },
  })
}

function upload(baseUrl: string, token: string, body: Readable): Promise<{ status: number; json: any }> {
  const boundary = `----bench${randomBytes(8).toString('hex')}`
  async function* multipart() {
    yield Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    )
    yield* body
    yield Buffer.from(`\r\n--${boundary}--\r\n`)
  }
  return new Promise((resolve, reject) => {
    const req = request(
      new URL('/v1/upload/private', baseUrl),
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
        res.on('end', () =>
          resolve({ status: res.statusCode!, json: JSON.parse(Buffer.concat(chunks).toString()) }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    Readable.from(multipart()).pipe(req)
  })
}

/** Samples this process's RSS every few milliseconds while `fn` runs. */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ result: T; peakRss: number }> {
  let peakRss = process.memoryUsage().rss
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss)
  }, 5)
  try {
    const result = await fn()
    peakRss = Math.max(peakRss, process.memoryUsage().rss)
    return { result, peakRss }
  } finally {
    clearInterval(timer)
  }
}

const mb = (bytes: number) => Number((bytes / MB).toFixed(1))

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const user = await ctx.createUser()
  const auth = { authorization: `Bearer ${user.token}` }
  const files = ctx.app.services.files
  const local = (url: string) => {
    const u = new URL(url)
    return files.store.driver === 'disk' ? `${ctx.baseUrl}${u.pathname}${u.search}` : url
  }

  // A small public file and a few records for the read cases.
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'base64',
  )
  let small: any
  for (let i = 0; i < 20; i++) {
    const body = new Readable({
      read() {
        this.push(png)
        this.push(null)
      },
    })
    const res = await upload(ctx.baseUrl, user.token, body)
    if (res.status !== 200) throw new Error(`seeding upload failed: ${JSON.stringify(res.json)}`)
    small = res.json.data
  }
  const smallUrl = new URL(local(await files.signedUrl(user.id, small._id)))

  let big: { id: string } | undefined

  return [
    {
      name: 'upload 100 MB (throughput, peak RSS over idle)',
      async run(): Promise<Record<string, number | string>> {
        if (files.maxBytes < SIZE) return { error: `UPLOAD_MAX_BYTES (${files.maxBytes}) is below 100 MB` }
        ;(globalThis as { gc?: () => void }).gc?.()
        await new Promise((r) => setTimeout(r, 200))
        const idle = process.memoryUsage().rss
        const started = performance.now()
        const { result, peakRss } = await withPeakRss(() => upload(ctx.baseUrl, user.token, generated(SIZE)))
        const seconds = (performance.now() - started) / 1000
        if (result.status !== 200) return { error: `upload answered ${result.status}` }
        big = { id: result.json.data._id }
        const over = mb(peakRss - idle)
        return {
          sizeMB: 100,
          seconds: Number(seconds.toFixed(2)),
          mbPerSec: Number((100 / seconds).toFixed(1)),
          idleRssMB: mb(idle),
          peakRssMB: mb(peakRss),
          peakOverIdleMB: over,
          budgetMB: RSS_BUDGET_MB,
          withinBudget: over < RSS_BUDGET_MB ? 'yes' : 'NO',
        }
      },
    },
    {
      name: 'download 100 MB (throughput, peak RSS over idle)',
      async run(): Promise<Record<string, number | string>> {
        if (!big) return { error: 'the upload case did not run' }
        const url = local(await files.signedUrl(user.id, big.id))
        const idle = process.memoryUsage().rss
        const started = performance.now()
        const { result: size, peakRss } = await withPeakRss(async () => {
          const res = await fetch(url)
          if (res.status !== 200) throw new Error(`download answered ${res.status}`)
          let n = 0
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) n += chunk.length
          return n
        })
        const seconds = (performance.now() - started) / 1000
        return {
          sizeMB: mb(size),
          seconds: Number(seconds.toFixed(2)),
          mbPerSec: Number((mb(size) / seconds).toFixed(1)),
          peakOverIdleMB: mb(peakRss - idle),
        }
      },
    },
    { name: 'list own files (#33)', path: '/v1/upload/?limit=12', headers: auth },
    { name: 'one file record (#34)', path: `/v1/upload/${small._id}`, headers: auth },
    { name: 'pre-signed URL (#35)', path: `/v1/upload/url/${small._id}`, headers: auth },
    {
      name: 'download a small private file through its signed URL',
      path: `${smallUrl.pathname}${smallUrl.search}`,
    },
  ]
}
