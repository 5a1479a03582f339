// The OpenAPI document as clients generate code from it: every operation declares its security,
// its examples (each valid against its schema), the error codes it really answers and the headers
// every response carries; resources are named components.
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProvider, type TestProvider } from '../auth/oidc-provider.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, PASSWORD, type TestUser } from '../helpers/factories.ts'

type Json = Record<string, any>
interface Op {
  method: string
  path: string
  op: Json
}

let t: TestApp
let user: TestUser
let doc: Json
const ops: Op[] = []
// Google sign-in is configured against a real OpenID provider, so its routes are probed, not 503.
let op: TestProvider

beforeAll(async () => {
  op = await startProvider()
  t = await createTestApp({ env: op.env })
  user = await createUser(t)
  const res = await t.req({ method: 'GET', url: '/openapi.json' })
  expect(res.statusCode).toBe(200)
  doc = res.json()
  for (const [path, item] of Object.entries<Json>(doc.paths))
    for (const [method, op] of Object.entries<Json>(item))
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) ops.push({ method, path, op })
})
afterAll(async () => {
  await t?.close()
  await op?.close()
})

const name = (o: Op) => `${o.method.toUpperCase()} ${o.path}`
const pointer = (segments: string[]) =>
  `#/${segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`

/** The codes an operation names for one status: the keys of that response's examples. */
function documentedCodes(o: Op, status: string): string[] {
  return Object.keys(o.op.responses?.[status]?.content?.['application/json']?.examples ?? {})
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with every documented route, the operational ones included', () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(ops.length).toBeGreaterThan(50)
    const paths = Object.keys(doc.paths)
    for (const p of ['/health', '/ready', '/v1/auth/login', '/v1/wallet', '/v1/payment', '/v1/upload/'])
      expect(paths).toContain(p)
    // Only the two paths the API contract names with a trailing slash keep one.
    expect(paths.filter((p) => p.endsWith('/')).sort()).toEqual(['/v1/upload/', '/v1/withdrawals/'])
  })

  it('gives every operation an id, a summary, a described tag and an explicit security', () => {
    const tags = new Map<string, string>(doc.tags.map((tag: Json) => [tag.name, tag.description]))
    const ids = new Set<string>()
    for (const o of ops) {
      expect(o.op.operationId, name(o)).toMatch(/^[A-Za-z][A-Za-z0-9]*$/)
      expect(ids.has(o.op.operationId), `${name(o)} operationId is unique`).toBe(false)
      ids.add(o.op.operationId)
      expect(o.op.summary, name(o)).toBeTruthy()
      for (const tag of o.op.tags ?? []) expect(tags.get(tag), `${name(o)} tag ${tag}`).toBeTruthy()
      expect(o.op.tags?.length, name(o)).toBeGreaterThan(0)
      expect(Array.isArray(o.op.security), `${name(o)} declares security`).toBe(true)
      for (const requirement of o.op.security)
        for (const scheme of Object.keys(requirement))
          expect(doc.components.securitySchemes[scheme], `${name(o)} scheme ${scheme}`).toBeDefined()
    }
    const publicOps = ops.filter((o) => o.op.security.length === 0).map(name)
    expect(publicOps).toContain('POST /v1/auth/login')
    expect(publicOps).toContain('GET /v1/payment-public/coins')
    expect(publicOps).toContain('GET /health')
  })

  it('names the resources as components and refers to them', () => {
    const schemas = doc.components.schemas
    for (const c of [
      'User',
      'PublicUser',
      'Collection',
      'Coin',
      'RpcConfig',
      'Wallet',
      'WalletEntry',
      'Withdrawal',
      'Transaction',
      'File',
      'Bookmark',
      'EscrowQuote',
      'PaymentData',
      'Token',
      'ErrorEnvelope',
    ])
      expect(schemas[c], c).toBeDefined()
    expect(Object.keys(schemas).some((k) => /^def-\d+$/.test(k))).toBe(false)
    const dataOf = (path: string, method = 'get') =>
      doc.paths[path][method].responses['200'].content['application/json'].schema.properties.data
    expect(dataOf('/v1/account')).toEqual({ $ref: '#/components/schemas/User' })
    expect(dataOf('/v1/wallet')).toEqual({ $ref: '#/components/schemas/Wallet' })
    expect(dataOf('/v1/payment/coins').items).toEqual({ $ref: '#/components/schemas/Coin' })
    expect(dataOf('/v1/collection/{id}')).toEqual({ $ref: '#/components/schemas/Collection' })
    expect(schemas.Wallet.properties.wallets.items).toEqual({ $ref: '#/components/schemas/WalletEntry' })
    expect(schemas.Transaction.properties.coin).toEqual({ $ref: '#/components/schemas/Coin' })
  })

  it('has an example for every JSON request body and success response', () => {
    const missing: string[] = []
    for (const o of ops) {
      const body = o.op.requestBody?.content?.['application/json']
      if (body && body.example === undefined && body.examples === undefined) missing.push(`${name(o)} body`)
      for (const [status, response] of Object.entries<Json>(o.op.responses)) {
        if (!status.startsWith('2')) continue
        for (const [type, media] of Object.entries<Json>(response.content ?? {})) {
          if (type === 'application/octet-stream') continue
          const has = media.example !== undefined || media.examples !== undefined || media.schema?.examples
          if (!has) missing.push(`${name(o)} ${status} ${type}`)
        }
      }
    }
    expect(missing).toEqual([])
  })

  it('validates every example against its schema', () => {
    const ajv = new Ajv2020.default({ strict: false, allErrors: true })
    addFormats.default(ajv)
    ajv.addFormat('binary', true)
    ajv.addSchema(doc, 'doc')
    const failures: string[] = []
    let checked = 0
    const check = (schemaAt: string[], value: unknown, where: string[]) => {
      const validate = ajv.compile({ $ref: `doc${pointer(schemaAt)}` })
      checked++
      if (!validate(value)) failures.push(`${where.join('/')}: ${ajv.errorsText(validate.errors)}`)
    }
    const walk = (node: unknown, at: string[]) => {
      if (!node || typeof node !== 'object') return
      if (Array.isArray(node)) {
        node.forEach((v, i) => {
          walk(v, [...at, String(i)])
        })
        return
      }
      const n = node as Json
      const parent = at[at.length - 1]
      // A schema's own `examples` (an array); not the `examples` map of a media type or parameter,
      // nor a property that happens to be called `examples`.
      if (Array.isArray(n.examples) && parent !== 'properties')
        n.examples.forEach((v: unknown, i: number) => {
          check(at, v, [...at, 'examples', String(i)])
        })
      if (n.schema && typeof n.schema === 'object') {
        if (n.example !== undefined) check([...at, 'schema'], n.example, [...at, 'example'])
        if (n.examples && !Array.isArray(n.examples))
          for (const [key, ex] of Object.entries<Json>(n.examples))
            check([...at, 'schema'], ex.value, [...at, 'examples', key])
      }
      for (const [key, value] of Object.entries(n))
        if (key !== 'examples' && key !== 'example') walk(value, [...at, key])
    }
    walk(doc, [])
    expect(failures).toEqual([])
    expect(checked).toBeGreaterThan(300)
    // compiling a validator per example is CPU-bound: seconds alone, a minute on a loaded machine
  }, 180_000)

  it('declares x-request-id on every response, Retry-After on 429 and 503, 400 and 500 everywhere', () => {
    expect(doc.components.headers.RequestId).toBeDefined()
    for (const o of ops) {
      expect(o.op.responses['400'], `${name(o)} 400`).toBeDefined()
      expect(o.op.responses['500'], `${name(o)} 500`).toBeDefined()
      for (const [status, response] of Object.entries<Json>(o.op.responses)) {
        expect(response.headers?.['x-request-id'], `${name(o)} ${status}`).toEqual({
          $ref: '#/components/headers/RequestId',
        })
        if (status === '429' || status === '503')
          expect(response.headers['Retry-After'], `${name(o)} ${status}`).toEqual({
            $ref: '#/components/headers/RetryAfter',
          })
      }
    }
  })

  it('declares Idempotency-Key on exactly the operations that honour it', () => {
    const withKey = ops
      .filter((o) =>
        (o.op.parameters ?? []).some((p: Json) => p.in === 'header' && p.name === 'Idempotency-Key'),
      )
      .map(name)
      .sort()
    expect(withKey).toEqual(
      [
        'POST /v1/admin/fees/sweep',
        'POST /v1/escrow/cancel',
        'POST /v1/escrow/initiate',
        'POST /v1/escrow/pay',
        'POST /v1/escrow/release',
        'POST /v1/payment',
        'POST /v1/payment/release',
        'POST /v1/withdrawals/',
      ].sort(),
    )
    for (const o of ops.filter((op) => withKey.includes(name(op)))) {
      expect(o.op.responses['200'].headers['idempotent-replayed'], name(o)).toBeDefined()
      expect(documentedCodes(o, '409'), name(o)).toContain('IDEMPOTENCY_KEY_REUSED')
    }
  })

  it('refuses a malformed Idempotency-Key as its declaration says', async () => {
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: user.token,
      headers: { 'idempotency-key': 'has spaces' },
      payload: {
        amount: 1,
        coin: 'avax',
        address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        password: PASSWORD,
      },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().data.code).toBe('VALIDATION_ERROR')
    expect(JSON.stringify(res.json().data.errors)).toMatch(/idempotency-key/i)
  })
})

describe('the documented answers are the real ones', () => {
  const ID = 'ffffffffffffffffffffffff'
  const concrete = (path: string, value = ID) => path.replace(/\{[^}]+\}/g, value)

  /** Checks that an error answer is declared for the operation, with its code named. */
  function expectDeclared(o: Op, res: { statusCode: number; body: string }, probe: string) {
    if (res.statusCode < 400) return
    const what = `${name(o)} (${probe}) answered ${res.statusCode} ${res.body.slice(0, 200)}`
    const status = String(res.statusCode)
    expect(o.op.responses[status], what).toBeDefined()
    const code = JSON.parse(res.body).data?.code
    expect(documentedCodes(o, status), what).toContain(code)
  }

  it('public operations answer an anonymous request without asking for a token', async () => {
    for (const o of ops.filter((op) => op.op.security.length === 0 && op.path.startsWith('/v1/'))) {
      const res = await t.req({
        method: o.method.toUpperCase() as any,
        url: concrete(o.path),
        ...(o.op.requestBody ? { payload: {} } : {}),
      })
      const body = res.statusCode === 401 ? res.json() : undefined
      expect(body?.message, `${name(o)}: ${res.body.slice(0, 200)}`).not.toBe('Missing bearer token')
      expectDeclared(o, res, 'anonymous')
    }
  })

  it('guarded operations answer 401 UNAUTHENTICATED without a token, as documented', async () => {
    const guarded = ops.filter((o) => o.op.security.some((s: Json) => 'bearer' in s))
    expect(guarded.length).toBeGreaterThan(30)
    for (const o of guarded) {
      const res = await t.req({ method: o.method.toUpperCase() as any, url: concrete(o.path) })
      expect(res.statusCode, name(o)).toBe(401)
      expectDeclared(o, res, 'no token')
    }
  })

  // Every route, several requests each: the first request of each route also compiles its
  // schemas (outside production they are compiled at first use).
  it('every error answered to malformed input and unknown ids is declared with its code', {
    timeout: 180_000,
  }, async () => {
    const login = async () =>
      (
        await t.req({
          method: 'POST',
          url: '/v1/auth/login',
          payload: { email: user.email, password: PASSWORD },
        })
      ).json().data.token as string
    let probes = 0
    for (const o of ops.filter((op) => op.path.startsWith('/v1/'))) {
      const secured = o.op.security.some((s: Json) => 'bearer' in s)
      const hasBody = Boolean(o.op.requestBody?.content?.['application/json'])
      const attempts: Array<[string, { url: string; payload?: unknown }]> = [
        ['unknown id', { url: concrete(o.path), ...(hasBody ? { payload: {} } : {}) }],
      ]
      if (o.path.includes('{')) attempts.push(['malformed id', { url: concrete(o.path, 'not-an-id') }])
      if (hasBody) attempts.push(['body of the wrong type', { url: concrete(o.path), payload: [1, 2] }])
      const query = (o.op.parameters ?? []).filter((p: Json) => p.in === 'query')
      if (query.length > 0) attempts.push(['unknown query parameter', { url: `${concrete(o.path)}?nope=1` }])
      for (const [probe, request] of attempts) {
        // A fresh session each time: a probe that succeeds (a logout) must not spoil the next.
        const token = secured ? await login() : undefined
        const res = await t.req({ method: o.method.toUpperCase() as any, token, ...request } as any)
        expect(res.statusCode, `${name(o)} (${probe}): ${res.body.slice(0, 200)}`).toBeLessThan(500)
        expectDeclared(o, res, probe)
        probes++
      }
    }
    expect(probes).toBeGreaterThan(100)
  })
})
