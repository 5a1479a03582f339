// The security headers on every kind of answer (helmet's, as an API sets them): success,
// errors of each origin (guard, validation, not found, malformed URL, the HTTP parser's own over a
// raw socket), probes, metrics, the OpenAPI document, and the pages that set their own policy.
// And /metrics in production: the service refuses to start without METRICS_TOKEN.
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { API_CSP } from '../../src/http/security-headers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let user: TestUser
let port: number

beforeAll(async () => {
  t = await createTestApp()
  user = await createUser(t)
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  port = (t.app.server.address() as { port: number }).port
})
afterAll(() => t?.close())

/** What every answer carries, whatever it is. */
function expectHardened(headers: Record<string, unknown>, what: string) {
  expect(headers['x-content-type-options'], what).toBe('nosniff')
  expect(headers['x-powered-by'], what).toBeUndefined()
}

/** What a JSON answer carries besides: a policy that allows nothing, no framing, HSTS, no referrer. */
function expectApiHeaders(headers: Record<string, unknown>, what: string) {
  expectHardened(headers, what)
  expect(headers['content-security-policy'], what).toBe(API_CSP)
  expect(headers['x-frame-options'], what).toBe('SAMEORIGIN')
  expect(headers['strict-transport-security'], what).toMatch(/^max-age=\d+; includeSubDomains$/)
  expect(headers['referrer-policy'], what).toBe('no-referrer')
  expect(headers['cross-origin-opener-policy'], what).toBe('same-origin')
  expect(headers['cross-origin-resource-policy'], what).toBe('cross-origin')
  expect(headers['x-dns-prefetch-control'], what).toBe('off')
  expect(headers['x-permitted-cross-domain-policies'], what).toBe('none')
}

describe('security headers', () => {
  it('on JSON answers of every kind', async () => {
    const cases: [string, Parameters<TestApp['req']>[0], number][] = [
      ['a success', { method: 'GET', url: '/v1/account', token: user.token }, 200],
      ['no token', { method: 'GET', url: '/v1/account' }, 401],
      ['a validation error', { method: 'POST', url: '/v1/auth/login', payload: { email: 'x' } }, 400],
      [
        'malformed JSON',
        {
          method: 'POST',
          url: '/v1/auth/login',
          payload: '{"a":',
          headers: { 'content-type': 'application/json' },
        },
        400,
      ],
      ['an unknown path', { method: 'GET', url: '/v1/nothing-here' }, 404],
      ['a malformed URL', { method: 'GET', url: '/v1/collection/%zz' }, 400],
      ['liveness', { method: 'GET', url: '/health' }, 200],
      ['the OpenAPI document', { method: 'GET', url: '/openapi.json' }, 200],
      ['metrics', { method: 'GET', url: '/metrics' }, 200],
      ['a preflight', { method: 'OPTIONS', url: '/v1/account' }, 404],
    ]
    for (const [what, req, status] of cases) {
      const res = await t.req(req)
      expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBe(status)
      expectApiHeaders(res.headers, what)
    }
  })

  it('on the answers of the HTTP parser itself (raw socket)', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      let got = ''
      const s = connect(port, '127.0.0.1', () =>
        s.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      )
      s.on('data', (d) => {
        got += d
      })
      s.on('error', reject)
      s.on('close', () => resolve(got))
    })
    expect(text).toMatch(/^HTTP\/1\.1 431 /)
    expect(text).toContain('X-Content-Type-Options: nosniff')
    expect(text).toContain(`Content-Security-Policy: ${API_CSP}`)
  })

  it('pages keep a policy of their own, nosniff included', async () => {
    for (const url of ['/admin', '/docs/']) {
      const res = await t.req({ method: 'GET', url })
      expect(res.statusCode, url).toBe(200)
      expectHardened(res.headers, url)
      expect(res.headers['content-security-policy'], url).not.toBe(API_CSP)
      expect(res.headers['content-security-policy'], url).toContain('script-src')
    }
  })
})

describe('/metrics in production', () => {
  it('refuses to start without METRICS_TOKEN', () => {
    let problems: string[] = []
    try {
      loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), KEY_ENCRYPTION_KEY: 'ab'.repeat(32) })
    } catch (err) {
      if (err instanceof ConfigError) problems = err.problems
      else throw err
    }
    expect(problems).toContain(
      'METRICS_TOKEN is required when NODE_ENV=production: /metrics is never open there',
    )
  })
})
