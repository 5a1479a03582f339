// Limits on repeated writes, one per kind: each limited operation, called by one account past its
// limit, answers 429 RATE_LIMITED with Retry-After (counted before validation, so malformed
// repeats count too), another account is not affected, and the per-IP limit holds across
// accounts. With REDIS_URL two API instances share the counters.
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { WRITE_LIMITS, type WriteKind, type WriteLimit } from '../../src/http/write-limits.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'

const PER_USER = 2
const PER_IP = 5
const kinds = Object.keys(WRITE_LIMITS) as WriteKind[]

let t: TestApp
/** each operation's method and path, from the document */
const routes = new Map<string, { method: string; url: string }>()

beforeAll(async () => {
  t = await createTestApp({
    env: {
      RATE_LIMIT_WRITES_SCALE: '1',
      RATE_LIMIT_WRITES: kinds.map((k) => `${k}=${PER_USER}/${PER_IP}`).join(','),
    },
  })
  const doc = t.app.swagger() as { paths: Record<string, Record<string, { operationId?: string }>> }
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item))
      if (op.operationId)
        routes.set(op.operationId, {
          method: method.toUpperCase(),
          url: path.replace(/\{[^}]+\}/g, 'a'.repeat(24)),
        })
})
afterAll(() => t?.close())

const MULTIPART = new Set(['uploadFile', 'uploadPrivateFile'])

/** The operation with an empty body (multipart for uploads): refused later, but counted first. */
function call(operationId: string, token: string) {
  const r = routes.get(operationId)
  if (!r) throw new Error(`no operation ${operationId}`)
  const body = MULTIPART.has(operationId)
    ? { payload: '--x--\r\n', headers: { 'content-type': 'multipart/form-data; boundary=x' } }
    : { payload: {} }
  return t.req({ method: r.method as 'POST', url: r.url, token, ...body })
}

describe('limits on repeated writes', () => {
  for (const kind of kinds)
    it(`${kind}: ${WRITE_LIMITS[kind].what}, per account`, async () => {
      const limit: WriteLimit = WRITE_LIMITS[kind]
      if (limit.public) {
        // A public operation has no account to count: PER_IP from this address, then 429.
        for (let i = 0; i < PER_IP; i++)
          expect((await call(limit.operations[0]!, '')).statusCode, `#${i + 1}`).not.toBe(429)
        const over = await call(limit.operations[0]!, '')
        expect(over.statusCode, over.body).toBe(429)
        expect(over.json().data.code).toBe('RATE_LIMITED')
        return
      }
      const ada = await createUser(t)
      const bob = await createUser(t)
      const op = WRITE_LIMITS[kind].operations[0]
      for (let i = 0; i < PER_USER; i++) {
        const res = await call(op, ada.token)
        expect(res.statusCode, `${op} #${i + 1}: ${res.body}`).not.toBe(429)
      }
      const over = await call(op, ada.token)
      expect(over.statusCode, over.body).toBe(429)
      expect(over.json()).toMatchObject({ status: 'error', data: { code: 'RATE_LIMITED' } })
      const retryAfter = Number(over.headers['retry-after'])
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(WRITE_LIMITS[kind].windowMs / 1000)
      // the operations of one kind share the count
      for (const other of WRITE_LIMITS[kind].operations.slice(1))
        expect((await call(other, ada.token)).statusCode, other).toBe(429)
      // another account on the same address still may, until the address's limit
      expect((await call(op, bob.token)).statusCode).not.toBe(429)
      expect((await call(op, bob.token)).statusCode).not.toBe(429)
      // per address: PER_IP in all from 127.0.0.1 (2 of Ada's, 2 of Bob's, then one of Carol's)
      const carol = await createUser(t)
      expect((await call(op, carol.token)).statusCode).not.toBe(429)
      const spent = await call(op, carol.token)
      expect(spent.statusCode).toBe(429)
      expect(spent.json().data.code).toBe('RATE_LIMITED')
    })
})

describe('shared through Redis by every API process', () => {
  let a: TestApp
  let b: FastifyInstance
  beforeAll(async () => {
    a = await createTestApp({
      env: {
        RATE_LIMIT_WRITES_SCALE: '1',
        RATE_LIMIT_WRITES: 'bookmarks=3/1000',
        REDIS_URL: 'redis://127.0.0.1:6379',
      },
    })
    b = await buildApp({ config: a.config, database: a.database, clock: a.clock, logger: false })
    await b.ready()
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it('requests through two instances count once', async () => {
    const user = await createUser(a)
    const body = { method: 'POST' as const, url: '/v1/bookmark', payload: {} }
    const headers = { authorization: `Bearer ${user.token}` }
    const statuses = [
      (await a.req({ ...body, token: user.token })).statusCode,
      (await b.inject({ ...body, headers })).statusCode,
      (await a.req({ ...body, token: user.token })).statusCode,
      (await b.inject({ ...body, headers })).statusCode,
    ]
    expect(statuses.slice(0, 3)).not.toContain(429)
    expect(statuses[3]).toBe(429)
  })
})
