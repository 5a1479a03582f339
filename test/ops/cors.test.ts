// CORS as a browser enforces it: a page served from another origin (a second local HTTP server)
// calls the API with a bearer token from headless Chromium. With CORS_ORIGINS naming the page's
// origin the call goes through and the page can read x-request-id and Retry-After; from an origin
// not listed, or with CORS_ORIGINS unset, the browser blocks it.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { launchChromium } from '../helpers/browser.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

interface Call {
  method: string
  path: string
  token?: string
  body?: unknown
}
type Outcome =
  | { ok: true; status: number; requestId: string | null; retryAfter: string | null; body: any }
  | { ok: false; error: string }

// The page's script: runs the calls given in its URL fragment against the API and shows the outcomes.
const PAGE = `<!doctype html><meta charset="utf-8"><title>client</title><pre id="out">running</pre>
<script>
(async () => {
  const { api, calls } = JSON.parse(decodeURIComponent(location.hash.slice(1)))
  const outcomes = []
  for (const c of calls) {
    try {
      const headers = {}
      if (c.token) headers.authorization = 'Bearer ' + c.token
      if (c.body !== undefined) headers['content-type'] = 'application/json'
      const res = await fetch(api + c.path, {
        method: c.method, headers, body: c.body === undefined ? undefined : JSON.stringify(c.body),
      })
      outcomes.push({ ok: true, status: res.status, requestId: res.headers.get('x-request-id'),
        retryAfter: res.headers.get('retry-after'), body: await res.json() })
    } catch (err) {
      outcomes.push({ ok: false, error: String(err) })
    }
  }
  document.getElementById('out').textContent = JSON.stringify(outcomes)
  document.title = 'done'
})()
</script>`

let browser: Browser
let pages: Server[] = []
let allowedOrigin: string
let otherOrigin: string
let withCors: TestApp
let withoutCors: TestApp
let userA: TestUser
let userB: TestUser

async function pageServer(): Promise<string> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  pages.push(server)
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

async function listen(t: TestApp): Promise<string> {
  return t.app.listen({ port: 0, host: '127.0.0.1' })
}

/** Opens the page of `origin` in Chromium and returns what its calls to `api` saw. */
async function fromBrowser(origin: string, api: string, calls: Call[]): Promise<Outcome[]> {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await page.goto(`${origin}/#${encodeURIComponent(JSON.stringify({ api, calls }))}`)
    await page.waitForFunction('document.title === "done"', undefined, { timeout: 30_000 })
    return JSON.parse((await page.textContent('#out')) ?? '[]')
  } finally {
    await context.close()
  }
}

beforeAll(async () => {
  allowedOrigin = await pageServer()
  otherOrigin = await pageServer()
  // two logins per IP per window: the third gets 429 with Retry-After
  withCors = await createTestApp({
    env: { CORS_ORIGINS: `https://app.example.com, ${allowedOrigin}`, RATE_LIMIT_AUTH_PER_IP: '2' },
  })
  withoutCors = await createTestApp()
  userA = await createUser(withCors)
  userB = await createUser(withoutCors)
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  for (const s of pages) await new Promise((r) => s.close(r))
  pages = []
  await withCors?.close()
  await withoutCors?.close()
})

describe('CORS in a browser', () => {
  it('lets a listed origin call the API with a bearer token and read x-request-id and Retry-After', async () => {
    const api = await listen(withCors)
    const wrongLogin = {
      method: 'POST',
      path: '/v1/auth/login',
      body: { email: userA.email, password: 'Wr0ng!pass' },
    }
    const [account, login, , limited] = await fromBrowser(allowedOrigin, api, [
      { method: 'GET', path: '/v1/account', token: userA.token },
      wrongLogin,
      wrongLogin,
      wrongLogin,
    ])
    expect(account).toMatchObject({ ok: true, status: 200, body: { data: { email: userA.email } } })
    expect(account?.ok && account.requestId).toMatch(/^[\w.-]+$/)
    expect(login).toMatchObject({ ok: true, status: 401, body: { data: { code: 'INVALID_CREDENTIALS' } } })
    expect(limited).toMatchObject({ ok: true, status: 429, body: { data: { code: 'RATE_LIMITED' } } })
    expect(Number(limited?.ok && limited.retryAfter)).toBeGreaterThan(0)
  })

  it('blocks a page from an origin that is not listed', async () => {
    const api = withCors.app.server.listening
      ? `http://127.0.0.1:${(withCors.app.server.address() as AddressInfo).port}`
      : await listen(withCors)
    const [account] = await fromBrowser(otherOrigin, api, [
      { method: 'GET', path: '/v1/account', token: userA.token },
    ])
    expect(account).toMatchObject({ ok: false, error: expect.stringMatching(/TypeError/) })
  })

  it('blocks every cross-origin page when CORS_ORIGINS is unset', async () => {
    const api = await listen(withoutCors)
    const [account, coins] = await fromBrowser(allowedOrigin, api, [
      { method: 'GET', path: '/v1/account', token: userB.token },
      { method: 'GET', path: '/v1/payment-public/coins' },
    ])
    expect(account).toMatchObject({ ok: false })
    expect(coins).toMatchObject({ ok: false })
  })
})

describe('CORS headers', () => {
  it('answers a preflight from a listed origin: methods, headers, exposed headers, no credentials', async () => {
    const res = await withCors.req({
      method: 'OPTIONS',
      url: '/v1/withdrawals/',
      headers: {
        origin: allowedOrigin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    })
    expect(res.statusCode).toBe(204)
    expect(res.headers['access-control-allow-origin']).toBe(allowedOrigin)
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST')
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('idempotency-key')
    expect(res.headers['access-control-allow-credentials']).toBeUndefined()
    const get = await withCors.req({ method: 'GET', url: '/health', headers: { origin: allowedOrigin } })
    expect(String(get.headers['access-control-expose-headers'])).toMatch(/x-request-id.*Retry-After/i)
    expect(get.headers.vary).toMatch(/Origin/i)
  })

  it('gives no CORS header to an origin that is not listed, nor to anyone when unset', async () => {
    for (const [t, origin] of [
      [withCors, otherOrigin],
      [withoutCors, allowedOrigin],
    ] as const) {
      const res = await t.req({ method: 'GET', url: '/health', headers: { origin } })
      expect(res.statusCode).toBe(200)
      expect(res.headers['access-control-allow-origin']).toBeUndefined()
    }
  })

  it('with CORS_ORIGINS=* allows any origin, still without credentials', async () => {
    const any = await createTestApp({ env: { CORS_ORIGINS: '*' } })
    try {
      const res = await any.req({
        method: 'GET',
        url: '/health',
        headers: { origin: 'https://anywhere.example' },
      })
      expect(res.headers['access-control-allow-origin']).toBe('*')
      expect(res.headers['access-control-allow-credentials']).toBeUndefined()
    } finally {
      await any.close()
    }
  })
})
