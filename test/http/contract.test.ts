// One suite over every documented route (read from the generated OpenAPI document, so a new
// route is covered the moment it exists): guarded routes refuse a missing, malformed, forged or
// revoked token with 401, and no garbage input of any kind produces a 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let user: TestUser
let revoked: TestUser
interface Op {
  method: string
  path: string
  secured: boolean
  body?: any
  multipart: boolean
  query: string[]
}
const ops: Op[] = []

beforeAll(async () => {
  t = await createTestApp()
  user = await createUser(t)
  revoked = await createUser(t)
  // Revoked the way a client revokes it (logout), so every cache of the session hears of it.
  const out = await t.req({ method: 'POST', url: '/v1/account/logout', token: revoked.token })
  expect(out.statusCode, out.body).toBe(200)
  const doc = t.app.swagger() as any
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const content = op.requestBody?.content ?? {}
      ops.push({
        method: method.toUpperCase(),
        path,
        secured: Array.isArray(op.security) && op.security.some((s: any) => 'bearer' in s),
        body: content['application/json']?.schema,
        multipart: 'multipart/form-data' in content,
        query: (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name),
      })
    }
  }
})
afterAll(() => t.close())

const ID = 'ffffffffffffffffffffffff'
const concrete = (path: string, value = ID) => path.replace(/\{[^}]+\}/g, value)

function expectEnvelopeError(
  res: { statusCode: number; body: string; headers: Record<string, unknown> },
  what: string,
) {
  expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBeGreaterThanOrEqual(400)
  expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBeLessThan(500)
  const body = JSON.parse(res.body)
  expect(body.status, what).toBe('error')
  expect(typeof body.data.code, what).toBe('string')
  expect(res.headers['x-request-id'], what).toBeTruthy()
}

/** A value of the wrong JSON type for `schema`. */
function wrongType(schema: any): unknown {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type
  switch (type) {
    case 'string':
      return { not: 'a string' }
    case 'number':
    case 'integer':
      return 'not a number'
    case 'boolean':
      return 'yes'
    case 'array':
      return 'not an array'
    case 'object':
      return ['not', 'an', 'object']
    default:
      return undefined
  }
}

describe('every route', () => {
  it('found the documented routes', () => {
    expect(ops.length).toBeGreaterThanOrEqual(8)
  })

  it('refuses guarded routes without a valid, live token', async () => {
    const secured = ops.filter((o) => o.secured)
    expect(secured.length).toBeGreaterThan(0)
    for (const op of secured) {
      const url = concrete(op.path)
      for (const [label, headers] of [
        ['no token', {}],
        ['malformed token', { authorization: 'Bearer not-a-jwt' }],
        ['wrong scheme', { authorization: `Basic ${user.token}` }],
        ['revoked token', { authorization: `Bearer ${revoked.token}` }],
      ] as const) {
        const res = await t.req({ method: op.method as any, url, headers })
        expect(res.statusCode, `${op.method} ${op.path} with ${label}`).toBe(401)
        expectEnvelopeError(res, `${op.method} ${op.path} with ${label}`)
        expect(res.json().data.code).toBe('UNAUTHENTICATED')
      }
    }
  })

  it('answers garbage bodies with a 4xx envelope, never a 5xx', async () => {
    for (const op of ops.filter((o) => ['POST', 'PUT', 'PATCH'].includes(o.method))) {
      const url = concrete(op.path)
      const token = op.secured ? user.token : undefined
      const payloads: Array<[string, string, string]> = [
        ['malformed JSON', '{"a":', 'application/json'],
        ['an array', '[1,2,3]', 'application/json'],
        ['a number', '42', 'application/json'],
        ['a deep object', `${'{"a":'.repeat(200)}1${'}'.repeat(200)}`, 'application/json'],
        ['form data', 'a=1&b=2', 'application/x-www-form-urlencoded'],
        ['text', 'hello', 'text/plain'],
      ]
      for (const [label, payload, type] of payloads) {
        // A route that takes no body ignores a well-formed one; malformed JSON is still refused.
        if (!op.body && !op.multipart && label !== 'malformed JSON') continue
        const res = await t.req({
          method: op.method as any,
          url,
          payload,
          headers: { 'content-type': type },
          token,
        })
        expectEnvelopeError(res, `${op.method} ${op.path} with ${label}`)
      }
      const props = op.body?.properties ?? {}
      for (const [name, schema] of Object.entries<any>(props)) {
        const bad = wrongType(schema)
        if (bad === undefined) continue
        const res = await t.req({ method: op.method as any, url, payload: { [name]: bad }, token })
        expectEnvelopeError(res, `${op.method} ${op.path} with a wrong type for ${name}`)
      }
      if (Object.keys(props).length > 0) {
        const huge: Record<string, unknown> = {}
        for (const [name, schema] of Object.entries<any>(props)) {
          if (schema.type === 'string') huge[name] = 'x'.repeat(200_000)
        }
        if (Object.keys(huge).length) {
          const res = await t.req({ method: op.method as any, url, payload: huge, token })
          expectEnvelopeError(res, `${op.method} ${op.path} with huge strings`)
        }
        const extra = await t.req({ method: op.method as any, url, payload: { unexpectedField: 1 }, token })
        expectEnvelopeError(extra, `${op.method} ${op.path} with an unknown field`)
      }
    }
  })

  it('refuses a NUL character in every string of every body and query with 400', async () => {
    let checked = 0
    for (const op of ops) {
      const url = concrete(op.path)
      const token = op.secured ? user.token : undefined
      for (const [name, schema] of Object.entries<any>(op.body?.properties ?? {})) {
        if (schema.type !== 'string') continue
        const res = await t.req({ method: op.method as any, url, payload: { [name]: 'a\u0000b' }, token })
        expect(res.statusCode, `${op.method} ${op.path} body ${name}: ${res.body}`).toBe(400)
        expect(res.json().message, `${op.method} ${op.path} body ${name}`).toMatch(/NUL/)
        checked++
      }
      for (const name of op.query) {
        const res = await t.req({ method: op.method as any, url: `${url}?${name}=a%00b`, token })
        expect(res.statusCode, `${op.method} ${op.path} query ${name}: ${res.body}`).toBe(400)
        expect(res.json().message, `${op.method} ${op.path} query ${name}`).toMatch(/NUL/)
        checked++
      }
    }
    expect(checked).toBeGreaterThan(30)
  })

  it('answers malformed and unknown path ids with a 4xx envelope', async () => {
    for (const op of ops.filter((o) => o.path.includes('{'))) {
      const token = op.secured ? user.token : undefined
      for (const value of ['not-an-id', ID, '%00', 'a'.repeat(500)]) {
        const res = await t.req({
          method: op.method as any,
          url: concrete(op.path, value),
          token,
          payload: op.method === 'GET' || op.method === 'DELETE' ? undefined : {},
        })
        expectEnvelopeError(res, `${op.method} ${op.path} with id ${value.slice(0, 20)}`)
      }
    }
  })

  it('answers nonsense query strings on list routes without a 5xx', async () => {
    for (const op of ops.filter((o) => o.method === 'GET' && !o.path.includes('{'))) {
      const token = op.secured ? user.token : undefined
      for (const qs of [
        'page=0',
        'page=-1',
        'limit=100000',
        'page=abc',
        'limit=1.5',
        'page[]=1&page[]=2',
        'search=%FF%FE',
        `search=${'x'.repeat(5000)}`,
      ]) {
        const res = await t.req({ method: 'GET', url: `${op.path}?${qs}`, token })
        expect(res.statusCode, `GET ${op.path}?${qs.slice(0, 40)}: ${res.body.slice(0, 200)}`).toBeLessThan(
          500,
        )
      }
    }
  })

  it('answers unknown routes and methods with the 404 envelope', async () => {
    expectEnvelopeError(await t.req({ method: 'GET', url: '/v1/nope' }), 'unknown route')
    expectEnvelopeError(await t.req({ method: 'DELETE', url: '/v1/auth/login' }), 'unknown method')
  })

  it('serves the OpenAPI document and the reference page', async () => {
    const doc = await t.req({ method: 'GET', url: '/openapi.json' })
    expect(doc.statusCode).toBe(200)
    expect(doc.json().openapi).toBe('3.1.0')
    expect(Object.keys(doc.json().paths)).toContain('/v1/auth/login')
    const page = await t.req({ method: 'GET', url: '/docs/' })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toMatch(/html/)
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self' 'sha256-/)
    expect(page.body).toContain('js/scalar.js')
    const script = await t.req({ method: 'GET', url: '/docs/js/scalar.js' })
    expect(script.statusCode).toBe(200)
    expect(script.headers['content-type']).toMatch(/javascript/)
    expect(script.headers['cache-control']).toBe('public, max-age=3600')
    expect(script.body.length).toBeGreaterThan(1_000_000)
    const bare = await t.req({ method: 'GET', url: '/docs' })
    expect(bare.statusCode).toBe(301)
    expect(bare.headers.location).toBe('/docs/')
    expectEnvelopeError(await t.req({ method: 'GET', url: '/docs/nope' }), 'unknown route')
  })

  it('reports liveness and readiness', async () => {
    const health = await t.req({ method: 'GET', url: '/health' })
    expect(health.statusCode).toBe(200)
    const ready = await t.req({ method: 'GET', url: '/ready' })
    expect(ready.statusCode).toBe(200)
    expect(ready.json().data.database).toBe(t.database.kind)
  })

  it('echoes a sane x-request-id and replaces an unsafe one', async () => {
    const given = await t.req({ method: 'GET', url: '/health', headers: { 'x-request-id': 'abc-123' } })
    expect(given.headers['x-request-id']).toBe('abc-123')
    const unsafe = await t.req({ method: 'GET', url: '/health', headers: { 'x-request-id': 'a b\u0001c' } })
    expect(unsafe.headers['x-request-id']).not.toBe('a b\u0001c')
  })
})
