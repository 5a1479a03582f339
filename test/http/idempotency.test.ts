import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/index.ts'
import { registerErrorHandling } from '../../src/http/error-handler.ts'
import { errors } from '../../src/http/errors.ts'
import { idempotent } from '../../src/http/idempotency.ts'
import { openTestDatabase } from '../helpers/app.ts'

let database: Database
let app: FastifyInstance
let runs = 0
const USER = 'aaaaaaaaaaaaaaaaaaaaaaaa'
const SHORT_LEASE = { leaseMs: 400, renewMs: 100 }
/** Requests to /slow wait until the test calls `finish()`. */
let finish: () => void = () => {}

beforeAll(async () => {
  database = await openTestDatabase()
  app = Fastify()
  registerErrorHandling(app)
  app.post('/move', async (req, reply) =>
    idempotent(database.db, req, reply, USER, async () => {
      const body = req.body as { amount: number }
      if (body.amount < 0) throw errors.named('WITHDRAWAL_BELOW_MINIMUM', 'negative')
      await new Promise((r) => setTimeout(r, 20))
      runs++
      return {
        statusCode: 200,
        body: { status: 'success', message: 'moved', data: { run: runs, amount: body.amount } },
      }
    }),
  )
  app.post('/slow', async (req, reply) =>
    idempotent(
      database.db,
      req,
      reply,
      USER,
      async () => {
        await new Promise<void>((resolve) => {
          finish = resolve
        })
        runs++
        return { statusCode: 200, body: { status: 'success', message: 'slow', data: { run: runs } } }
      },
      SHORT_LEASE,
    ),
  )
  await app.ready()
})
afterAll(async () => {
  await app.close()
  await database.close()
})

const move = (key: string | undefined, amount: number) =>
  app.inject({
    method: 'POST',
    url: '/move',
    payload: { amount },
    headers: key ? { 'idempotency-key': key } : {},
  })

describe('Idempotency-Key', () => {
  it('runs once and replays the first response for the same key and body', async () => {
    const before = runs
    const a = await move('k-1', 5)
    const b = await move('k-1', 5)
    expect(a.statusCode).toBe(200)
    expect(b.json()).toEqual(a.json())
    expect(b.headers['idempotent-replayed']).toBe('true')
    expect(runs).toBe(before + 1)
  })

  it('refuses the same key with another body (409)', async () => {
    await move('k-2', 5)
    const other = await move('k-2', 6)
    expect(other.statusCode).toBe(409)
    expect(other.json().data.code).toBe('IDEMPOTENCY_KEY_REUSED')
  })

  it('runs concurrent duplicates once: one answer, the others 409 or a replay', async () => {
    const before = runs
    const results = await Promise.all(Array.from({ length: 5 }, () => move('k-3', 7)))
    expect(runs).toBe(before + 1)
    expect(results.filter((r) => r.statusCode === 200).length).toBeGreaterThanOrEqual(1)
    for (const r of results) expect([200, 409]).toContain(r.statusCode)
  })

  it('lets a failed request be retried with the same key', async () => {
    const failed = await move('k-4', -1)
    expect(failed.statusCode).toBe(422)
    const retried = await move('k-4', -1)
    expect(retried.statusCode).toBe(422)
    const rows = await database.db
      .selectFrom('idempotencyKeys')
      .selectAll()
      .where('key', '=', 'k-4')
      .execute()
    expect(rows).toHaveLength(0)
  })

  it('runs every request without a key', async () => {
    const before = runs
    await move(undefined, 1)
    await move(undefined, 1)
    expect(runs).toBe(before + 2)
  })

  it('refuses a malformed key', async () => {
    const res = await move('bad key with spaces', 1)
    expect(res.statusCode).toBe(400)
  })

  it('keeps no fingerprint of the password or code in the request body', async () => {
    const withSecrets = (key: string, password: string, code: string) =>
      app.inject({
        method: 'POST',
        url: '/move',
        payload: { amount: 9, password, code },
        headers: { 'idempotency-key': key },
      })
    const first = await withSecrets('k-secret-1', 'Tr0ub4dor&3', '123456')
    expect(first.statusCode).toBe(200)
    await withSecrets('k-secret-2', 'correct-Horse-1', '654321')
    const rows = await database.db
      .selectFrom('idempotencyKeys')
      .select(['key', 'requestHash'])
      .where('key', 'in', ['k-secret-1', 'k-secret-2'])
      .orderBy('key')
      .execute()
    // A fast unsalted hash over the password would let a database dump be cracked offline.
    expect(rows).toHaveLength(2)
    expect(rows[0]!.requestHash).toBe(rows[1]!.requestHash)
    // The same key and operation with another password is the same request: a replay.
    const again = await withSecrets('k-secret-1', 'another-Pass-2', '111111')
    expect(again.statusCode).toBe(200)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.json()).toEqual(first.json())
  })

  it("keeps a running request's claim alive past the lease: a duplicate meanwhile gets 409", async () => {
    const first = app.inject({
      method: 'POST',
      url: '/slow',
      payload: {},
      headers: { 'idempotency-key': 'k-live' },
    })
    await new Promise((r) => setTimeout(r, 1_200)) // three leases, renewed every 100 ms
    const dup = await app.inject({
      method: 'POST',
      url: '/slow',
      payload: {},
      headers: { 'idempotency-key': 'k-live' },
    })
    expect(dup.statusCode).toBe(409)
    expect(dup.json().message).toMatch(/in progress/)
    finish()
    expect((await first).statusCode).toBe(200)
    const replay = await app.inject({
      method: 'POST',
      url: '/slow',
      payload: {},
      headers: { 'idempotency-key': 'k-live' },
    })
    expect(replay.headers['idempotent-replayed']).toBe('true')
  })

  it('takes over a claim whose lease lapsed, and fences the old claimant out', async () => {
    // A claim left by a process that died: never renewed, older than the lease.
    const hash = (
      await database.db
        .selectFrom('idempotencyKeys')
        .select('requestHash')
        .where('key', '=', 'k-live')
        .executeTakeFirstOrThrow()
    ).requestHash
    await database.db
      .insertInto('idempotencyKeys')
      .values({ userId: USER, key: 'k-dead', route: 'POST /slow', requestHash: hash, claim: 'dead-process' })
      .execute()
    await new Promise((r) => setTimeout(r, 600))
    const before = runs
    const taking = app.inject({
      method: 'POST',
      url: '/slow',
      payload: {},
      headers: { 'idempotency-key': 'k-dead' },
    })
    await new Promise((r) => setTimeout(r, 150))
    finish()
    const res = await taking
    expect(res.statusCode).toBe(200)
    expect(runs).toBe(before + 1)
    const row = await database.db
      .selectFrom('idempotencyKeys')
      .select(['claim', 'statusCode'])
      .where('key', '=', 'k-dead')
      .executeTakeFirstOrThrow()
    expect(row.claim).not.toBe('dead-process')
    expect(row.statusCode).toBe(200)
  })
})
