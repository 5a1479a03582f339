// Requests as real clients and attackers send them: paths with trailing and doubled slashes, a JSON
// content type with no body, NUL characters, deep nesting, requests Node's HTTP parser refuses, and
// bodies that never finish. None may give a 5xx or hold the server.
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH } from '../../src/http/json-body.ts'
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
afterAll(() => t.close())

const json = { 'content-type': 'application/json' }

async function createCollection(): Promise<string> {
  const res = await t.req({
    method: 'POST',
    url: '/v1/collection',
    token: user.token,
    payload: { name: 'A job', description: 'Some work', type: 'job' },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data._id
}

/** Writes raw bytes to the server and resolves with everything it answers until it closes. */
function raw(
  request: string | Buffer,
  opts: { timeoutMs?: number } = {},
): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`server held the connection for ${opts.timeoutMs} ms`))
    }, opts.timeoutMs ?? 10_000)
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ text: Buffer.concat(chunks).toString('utf8'), ms: Date.now() - started })
    })
    socket.write(request)
  })
}

function parseRaw(text: string) {
  const [head, body] = text.split('\r\n\r\n')
  const status = Number(head?.split(' ')[1])
  const headers = Object.fromEntries(
    (head ?? '')
      .split('\r\n')
      .slice(1)
      .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  )
  return { status, headers, body: body ? JSON.parse(body) : undefined }
}

describe('paths as clients write them', () => {
  it('answers with and without a trailing slash', async () => {
    for (const url of ['/v1/wallet', '/v1/wallet/', '/v1/withdrawals', '/v1/withdrawals/', '/v1/account/']) {
      const res = await t.req({ method: 'GET', url, token: user.token })
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
    }
  })

  it('lists transactions at /v1/transaction/ rather than reading a transaction with an empty id', async () => {
    const plain = await t.req({ method: 'GET', url: '/v1/transaction', token: user.token })
    const slash = await t.req({ method: 'GET', url: '/v1/transaction/', token: user.token })
    expect(slash.statusCode, slash.body).toBe(200)
    expect(slash.json().data).toEqual(plain.json().data)
  })

  it('collapses repeated slashes', async () => {
    const id = await createCollection()
    const res = await t.req({ method: 'GET', url: `/v1/collection//${id}`, token: user.token })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data._id).toBe(id)
    const wallet = await t.req({ method: 'GET', url: '//v1//wallet//', token: user.token })
    expect(wallet.statusCode, wallet.body).toBe(200)
  })

  it('takes an upload at POST /v1/upload/', async () => {
    const boundary = 'b0undary'
    const payload = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="file"; filename="note.txt"',
      'Content-Type: text/plain',
      '',
      'hello there',
      `--${boundary}--`,
      '',
    ].join('\r\n')
    const res = await t.req({
      method: 'POST',
      url: '/v1/upload/',
      token: user.token,
      payload,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    })
    expect(res.statusCode, res.body).toBe(200)
  })
})

describe('bodies as clients send them', () => {
  it('treats a JSON content type with an empty body as no body', async () => {
    const id = await createCollection()
    const del = await t.req({
      method: 'DELETE',
      url: `/v1/collection/${id}`,
      token: user.token,
      headers: json,
    })
    expect(del.statusCode, del.body).toBe(200)
    const code = await t.req({
      method: 'POST',
      url: '/v1/account/2fa/email',
      token: user.token,
      headers: json,
    })
    expect(code.statusCode, code.body).toBe(200)
    const other = await createUser(t)
    const out = await t.req({ method: 'POST', url: '/v1/account/logout', token: other.token, headers: json })
    expect(out.statusCode, out.body).toBe(200)
  })

  it('still refuses an empty body where a body is required', async () => {
    const res = await t.req({ method: 'POST', url: '/v1/auth/login', headers: json, payload: '' })
    expect(res.statusCode).toBe(400)
    expect(res.json().data.code).toBe('VALIDATION_ERROR')
  })

  it('refuses prototype keys', async () => {
    const res = await t.req({
      method: 'POST',
      url: '/v1/auth/login',
      headers: json,
      payload: '{"email":"a@b.co","password":"x","__proto__":{"admin":true}}',
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().data.code).toBe('VALIDATION_ERROR')
  })
})

describe('NUL characters', () => {
  const expectNul = (res: { statusCode: number; body: string }, what: string) => {
    expect(res.statusCode, `${what}: ${res.body}`).toBe(400)
    const body = JSON.parse(res.body)
    expect(body.data.code).toBe('VALIDATION_ERROR')
    expect(body.message).toMatch(/NUL/)
  }

  it('refuses them in body strings, nested strings and keys', async () => {
    expectNul(
      await t.req({
        method: 'PATCH',
        url: '/v1/account/update',
        token: user.token,
        payload: { firstName: 'A\u0000' },
      }),
      'profile name',
    )
    expectNul(
      await t.req({
        method: 'POST',
        url: '/v1/collection',
        token: user.token,
        payload: { name: 'x', description: 'y', type: 'job', tags: ['ok', 'b\u0000d'] },
      }),
      'array item',
    )
    expectNul(
      await t.req({
        method: 'POST',
        url: '/v1/auth/login',
        headers: json,
        payload: '{"email\\u0000":"a","password":"b"}',
      }),
      'key',
    )
  })

  it('refuses them in query strings and path parameters', async () => {
    expectNul(await t.req({ method: 'GET', url: '/v1/account/user?role=%00', token: user.token }), 'role')
    expectNul(await t.req({ method: 'GET', url: '/v1/transaction?coin=usdc%00', token: user.token }), 'coin')
    expectNul(await t.req({ method: 'GET', url: '/v1/wallet/coin/us%00dc', token: user.token }), 'path')
  })
})

describe('deep nesting', () => {
  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels before reading it`, async () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 20_000]) {
      const payload = `{"firstName":"A","meta":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`
      const res = await t.req({
        method: 'PATCH',
        url: '/v1/account/update',
        token: user.token,
        headers: json,
        payload,
      })
      expect(res.statusCode, `depth ${depth}: ${res.body.slice(0, 200)}`).toBe(400)
      expect(res.json().message).toMatch(/nested deeper/)
    }
    const arrays = `[${'['.repeat(50_000)}${']'.repeat(50_000)}]`
    const res = await t.req({ method: 'POST', url: '/v1/auth/login', headers: json, payload: arrays })
    expect(res.statusCode).toBe(400)
  })

  it('counts brackets inside strings as text', async () => {
    const res = await t.req({
      method: 'PATCH',
      url: '/v1/account/update',
      token: user.token,
      payload: { profile: { bio: { description: `${'{['.repeat(100)} braces in prose` } } },
    })
    expect(res.statusCode, res.body).toBe(200)
  })
})

describe('requests the HTTP parser refuses', () => {
  it('answers over-large headers with the envelope and a request id', async () => {
    const { text } = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    const res = parseRaw(text)
    expect(res.status).toBe(431)
    expect(res.headers['x-request-id']).toMatch(/^[\w-]{36}$/)
    expect(res.body).toMatchObject({ status: 'error', data: { code: 'HEADERS_TOO_LARGE' } })
  })

  it('answers broken chunked encoding with the envelope and a request id', async () => {
    const { text } = await raw(
      'POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    )
    const res = parseRaw(text)
    expect(res.status).toBe(400)
    expect(res.headers['x-request-id']).toBeTruthy()
    expect(res.body).toMatchObject({ status: 'error', data: { code: 'VALIDATION_ERROR' } })
  })

  it('answers a request line that is not HTTP with the envelope', async () => {
    const { text } = await raw('HELLO THERE\r\n\r\n')
    const res = parseRaw(text)
    expect(res.status).toBe(400)
    expect(res.body.status).toBe('error')
  })
})

describe('slow clients', () => {
  it('closes a request whose body never finishes within 30 s', { timeout: 45_000 }, async () => {
    const { text, ms } = await raw(
      'POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
      { timeoutMs: 35_000 },
    )
    expect(ms).toBeLessThanOrEqual(33_000)
    const res = parseRaw(text)
    expect(res.status).toBe(408)
    expect(res.body).toMatchObject({ status: 'error', data: { code: 'REQUEST_TIMEOUT' } })
  })
})
