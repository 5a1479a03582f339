// Slow clients against the request time limit, over raw sockets: a request that has not arrived
// whole within its limit is answered 408 and its connection closed within a couple of seconds of
// the limit (Node only checks every `connectionsCheckingInterval`, 30 s unless set), whatever the
// route did meanwhile. The limit is set small here (1.5 s; 30 s in the service) so the tests are
// quick; the check runs at a quarter of it.
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import type { Database } from '../../src/db/index.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import { openTestDatabase, TEST_ENV } from '../helpers/app.ts'

const LIMIT_MS = 1_500
/** how long after the limit the connection may still be open: the check interval and some slack */
const SLACK_MS = 2_000

let app: FastifyInstance
let database: Database
let port: number
let dataDir: string

beforeAll(async () => {
  database = await openTestDatabase()
  dataDir = mkdtempSync(join(tmpdir(), 'wp-timeout-'))
  const config = loadConfig({ ...TEST_ENV, DATA_DIR: dataDir })
  app = await buildApp({
    config,
    database,
    clock: new ManualClock(),
    logger: false,
    connectionLimits: { requestTimeoutMs: LIMIT_MS, headersTimeoutMs: 1_000 },
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  port = (app.server.address() as { port: number }).port
})

afterAll(async () => {
  await app?.close()
  await database?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

/** Sends `parts` on one connection (each after the answer to the one before), then waits for the close. */
function slowClient(parts: string[]): Promise<{ text: string; openMs: number }> {
  return new Promise((resolve, reject) => {
    let text = ''
    let lastWrite = 0
    const s = connect(port, '127.0.0.1', () => {
      s.write(parts[0]!)
      lastWrite = performance.now()
    })
    let next = 1
    s.on('data', (d) => {
      text += d.toString('latin1')
      // a complete answer to an earlier request: send the next one on the same connection
      if (next < parts.length && /\r\n\r\n[\s\S]*\}$/.test(text)) {
        s.write(parts[next++]!)
        lastWrite = performance.now()
      }
    })
    s.on('error', reject)
    s.on('close', () => resolve({ text, openMs: performance.now() - lastWrite }))
  })
}

const statusesOf = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]))

describe('a request that does not arrive whole in time', () => {
  it('4 bytes of a 50-byte JSON body: 408 and closed soon after the limit', async () => {
    const { text, openMs } = await slowClient([
      'POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"em',
    ])
    expect(statusesOf(text)).toEqual([408])
    expect(text).toContain('"code":"REQUEST_TIMEOUT"')
    expect(text.toLowerCase()).toContain('x-request-id:')
    expect(openMs).toBeGreaterThanOrEqual(LIMIT_MS - 100)
    expect(openMs).toBeLessThan(LIMIT_MS + SLACK_MS)
  })

  it('a guarded route answered 401 before its body: the unfinished body still ends the connection', async () => {
    const { text, openMs } = await slowClient([
      'PATCH /v1/account/update HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"fi',
    ])
    expect(statusesOf(text)[0]).toBe(401)
    expect(openMs).toBeLessThan(LIMIT_MS + SLACK_MS)
  })

  it('the second request of a kept-alive connection is held to its own limit', async () => {
    const { text, openMs } = await slowClient([
      'GET /health HTTP/1.1\r\nHost: x\r\n\r\n',
      'POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"em',
    ])
    expect(statusesOf(text)).toEqual([200, 408])
    expect(openMs).toBeLessThan(LIMIT_MS + SLACK_MS)
  })

  it('headers that never finish: 408 and closed', async () => {
    const { text, openMs } = await slowClient(['POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Ty'])
    expect(statusesOf(text)).toEqual([408])
    expect(openMs).toBeLessThan(LIMIT_MS + SLACK_MS)
  })

  it('a multipart upload that stalls: closed soon after the limit', async () => {
    const boundary = 'x1x2x3'
    const { openMs } = await slowClient([
      `POST /v1/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 5000\r\n\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`,
    ])
    expect(openMs).toBeLessThan(LIMIT_MS + SLACK_MS)
  })

  it('a request that arrives in time is answered as usual', async () => {
    const { text } = await slowClient(['GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'])
    expect(statusesOf(text)).toEqual([200])
  })
})
