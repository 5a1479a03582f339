// Account webhooks on the real app, database and dev chain, delivered to a real HTTP receiver:
// registration (secret shown once, sealed at rest), a deposit delivered with a signature the
// receiver verifies, retries with backoff after 500s, giving up after the last attempt, one
// delivery per event and endpoint however often a job runs, rotation, deletion and permissions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_ACCOUNT_ENDPOINTS, secretAad } from '../../src/modules/webhooks/catalog.ts'
import { WebhookDelivery } from '../../src/modules/webhooks/delivery.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { sendFrom, USDC, walletAddress } from '../helpers/money.ts'
import { type Receiver, startReceiver, verifyAsReceiver } from './receiver.ts'

let t: TestApp
let r: Receiver
let ada: TestUser
let bob: TestUser

beforeAll(async () => {
  t = await createTestApp()
  r = await startReceiver(() => t.clock.now().getTime())
  ada = await createUser(t)
  bob = await createUser(t)
  await t.app.services.chain.devnet!.fund(
    t.app.services.chain.devnet!.accounts[2]!.address,
    'usdc',
    1_000n * USDC,
  )
})
afterAll(async () => {
  await t?.close()
  await r?.close()
})

const MINUTE = 60_000

async function register(user: TestUser, body: Record<string, unknown>) {
  const res = await t.req({ method: 'POST', url: '/v1/webhooks', token: user.token, payload: body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as { _id: string; secret: string; url: string; events: string[] }
}

/** A real deposit of `amount` USDC base units to the user's wallet, credited by the watcher. */
async function deposit(user: TestUser, amount: bigint) {
  const outsider = t.app.services.chain.devnet!.accounts[2]!
  await sendFrom(t, outsider, await walletAddress(t, user), 'usdc', amount)
  await t.app.services.settlement.watcher.scanNow()
  await t.drain()
}

async function deliveries(user: TestUser, endpointId: string, query = '') {
  const res = await t.req({
    method: 'GET',
    url: `/v1/webhooks/${endpointId}/deliveries${query}`,
    token: user.token,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as { data: Record<string, any>[]; total: number }
}

const nowMs = () => t.clock.now().getTime()

/** The requests the receiver got on `path`. */
const at = (path: string) => r.received.filter((x) => x.path === path)

describe('registration', () => {
  it('shows the secret once, seals it at rest, lists without it', async () => {
    const ep = await register(ada, { url: r.url('/reg'), events: ['deposit.credited'], description: 'shop' })
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(ep).toMatchObject({ url: r.url('/reg'), events: ['deposit.credited'], collectionId: null })
    const row = await t.database.db
      .selectFrom('webhookEndpoints')
      .select(['secretSealed'])
      .where('id', '=', ep._id)
      .executeTakeFirstOrThrow()
    expect(row.secretSealed).not.toContain(ep.secret)
    expect(row.secretSealed).toMatch(/^v1\./)
    expect(t.app.services.secrets.open(row.secretSealed, secretAad(ep._id))).toBe(ep.secret)
    // the sealed secret opens for its own endpoint only
    expect(() => t.app.services.secrets.open(row.secretSealed, secretAad('0'.repeat(24)))).toThrow()

    const list = await t.req({ method: 'GET', url: '/v1/webhooks', token: ada.token })
    expect(list.statusCode).toBe(200)
    expect(list.body).not.toContain(ep.secret)
    expect(list.json().data.data.map((e: { _id: string }) => e._id)).toContain(ep._id)
    const one = await t.req({ method: 'GET', url: `/v1/webhooks/${ep._id}`, token: ada.token })
    expect(one.json().data).not.toHaveProperty('secret')
    await t.req({ method: 'DELETE', url: `/v1/webhooks/${ep._id}`, token: ada.token })
  })

  it('refuses bad URLs and events', async () => {
    for (const payload of [
      { url: 'ftp://shop.example.com/hook' },
      { url: 'http://shop.example.com/hook' },
      { url: 'https://user:pw@shop.example.com/hook' },
      { url: 'not a url' },
      { url: r.url(), events: ['collection.created'] },
      { url: r.url(), events: [] },
      { url: r.url(), extra: 1 },
    ]) {
      const res = await t.req({ method: 'POST', url: '/v1/webhooks', token: ada.token, payload })
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json().data.code).toBe('VALIDATION_ERROR')
    }
  })

  it('refuses an endpoint over the limit of an account', async () => {
    const cy = await createUser(t)
    for (let i = 0; i < MAX_ACCOUNT_ENDPOINTS; i++)
      await register(cy, { url: r.url(`/many-${i}`), events: ['deposit.credited'] })
    const res = await t.req({
      method: 'POST',
      url: '/v1/webhooks',
      token: cy.token,
      payload: { url: r.url('/one-more'), events: ['deposit.credited'] },
    })
    expect(res.statusCode, res.body).toBe(422)
    expect(res.json().data.code).toBe('WEBHOOK_LIMIT_REACHED')
  })
})

describe('delivery', () => {
  it('POSTs a credited deposit with a signature the receiver verifies', async () => {
    const ep = await register(ada, { url: r.url('/deposit'), events: ['deposit.credited'] })
    await deposit(ada, 5n * USDC)
    const got = at('/deposit')
    expect(got).toHaveLength(1)
    const req = got[0]!
    const body = JSON.parse(req.body)
    expect(body).toMatchObject({
      type: 'deposit.credited',
      collectionId: null,
      data: { coin: 'usdc', amount: '5', transactionId: expect.any(String) },
    })
    expect(req.headers['webhook-id']).toBe(body.id)
    expect(req.headers['webhook-attempt']).toBe('1')
    expect(req.headers['content-type']).toBe('application/json')
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
    expect(req.headers['webhook-timestamp']).toMatch(/^\d{10}$/)
    // the standardwebhooks package verifies it as a receiver would, and answers the event
    expect(verifyAsReceiver(ep.secret, req, nowMs())).toEqual(body)
    // a forged body, another secret or an old timestamp do not verify
    const forged = { ...req, body: req.body.replace('"5"', '"500"') }
    expect(() => verifyAsReceiver(ep.secret, forged, nowMs())).toThrow('No matching signature found')
    const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`
    expect(() => verifyAsReceiver(other, req, nowMs())).toThrow('No matching signature found')
    expect(() => verifyAsReceiver(ep.secret, req, nowMs() + 3600_000)).toThrow('Message timestamp too old')

    const log = await deliveries(ada, ep._id)
    expect(log.total).toBe(1)
    expect(log.data[0]).toMatchObject({
      eventId: body.id,
      type: 'deposit.credited',
      status: 'delivered',
      attempts: 1,
      maxAttempts: 10,
      lastStatusCode: 200,
      responseExcerpt: 'ok',
      nextAttemptAt: null,
      deliveredAt: expect.any(String),
    })
    await t.req({ method: 'DELETE', url: `/v1/webhooks/${ep._id}`, token: ada.token })
  })

  it('retries with backoff after 500s, then succeeds; the receiver processes the event once', async () => {
    const ep = await register(ada, { url: r.url('/retry'), events: ['deposit.credited'] })
    r.answers.push(500, 500)
    await deposit(ada, 2n * USDC)
    let log = await deliveries(ada, ep._id)
    expect(log.data[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: 500,
      lastError: 'HTTP 500',
    })
    // the body excerpt is short, however long the answer
    expect(log.data[0]!.responseExcerpt.length).toBeLessThanOrEqual(256)
    const first = new Date(log.data[0]!.lastAttemptAt).getTime()
    expect(new Date(log.data[0]!.nextAttemptAt).getTime() - first).toBe(MINUTE)

    // not before its time
    t.clock.advance(MINUTE - 5_000)
    await t.drain()
    expect(at('/retry')).toHaveLength(1)
    t.clock.advance(5_000)
    await t.drain()
    expect(at('/retry')).toHaveLength(2)
    log = await deliveries(ada, ep._id)
    expect(log.data[0]).toMatchObject({ status: 'pending', attempts: 2, lastStatusCode: 500 })
    const second = new Date(log.data[0]!.lastAttemptAt).getTime()
    expect(new Date(log.data[0]!.nextAttemptAt).getTime() - second).toBe(2 * MINUTE)

    t.clock.advance(2 * MINUTE)
    await t.drain()
    const got = at('/retry')
    expect(got.map((g) => g.status)).toEqual([500, 500, 200])
    expect(new Set(got.map((g) => g.headers['webhook-id'])).size).toBe(1)
    expect(got.map((g) => g.headers['webhook-attempt'])).toEqual(['1', '2', '3'])
    expect(new Set(got.map((g) => g.body)).size).toBe(1)
    // each attempt signed at its own time: verified by the receiver when it arrived
    for (const g of got)
      expect(verifyAsReceiver(ep.secret, g, g.receivedAt)).toMatchObject({ id: g.headers['webhook-id'] })
    expect(r.processed.filter((id) => id === got[0]!.headers['webhook-id'])).toHaveLength(1)
    log = await deliveries(ada, ep._id)
    expect(log.total).toBe(1)
    expect(log.data[0]).toMatchObject({
      status: 'delivered',
      attempts: 3,
      lastStatusCode: 200,
      nextAttemptAt: null,
    })
    await t.req({ method: 'DELETE', url: `/v1/webhooks/${ep._id}`, token: ada.token })
  })

  it('gives up after 10 attempts over about a day', async () => {
    const ep = await register(bob, { url: r.url('/down'), events: ['deposit.credited'] })
    r.answers.push(...Array(10).fill(503))
    await deposit(bob, USDC)
    const waits: number[] = []
    for (let i = 0; i < 12; i++) {
      const [d] = (await deliveries(bob, ep._id)).data
      if (d!.status !== 'pending') break
      const wait = new Date(d!.nextAttemptAt).getTime() - new Date(d!.lastAttemptAt).getTime()
      waits.push(wait)
      t.clock.advance(wait)
      await t.drain()
    }
    expect(at('/down')).toHaveLength(10)
    for (const g of at('/down')) expect(verifyAsReceiver(ep.secret, g, g.receivedAt)).toBeTruthy()
    // exponential-ish: each wait longer than the one before, about 22 hours in all
    expect(waits).toHaveLength(9)
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1]!)
    const total = waits.reduce((a, b) => a + b, 0)
    expect(total).toBeGreaterThan(20 * 60 * MINUTE)
    expect(total).toBeLessThan(26 * 60 * MINUTE)
    const log = await deliveries(bob, ep._id, '?status=failed')
    expect(log.data[0]).toMatchObject({
      status: 'failed',
      attempts: 10,
      lastStatusCode: 503,
      nextAttemptAt: null,
    })
    // nothing more is tried
    t.clock.advance(48 * 60 * MINUTE)
    await t.drain()
    expect(at('/down')).toHaveLength(10)
    await t.req({ method: 'DELETE', url: `/v1/webhooks/${ep._id}`, token: bob.token })
  })
})

describe('exactly one delivery per event and endpoint', () => {
  it('a replayed job sends nothing again; the subscriber run twice adds nothing', async () => {
    const ep = await register(ada, { url: r.url('/dedup'), events: ['deposit.credited'] })
    await deposit(ada, 3n * USDC)
    expect(at('/dedup')).toHaveLength(1)
    const [d] = (await deliveries(ada, ep._id)).data
    const db = t.database.db
    // the same job again (a replay after a crash), and a later attempt's job: no second POST
    await t.app.services.jobs.enqueue(db, 'webhooks.deliver', { deliveryId: d!._id, attempt: 1 })
    await t.app.services.jobs.enqueue(db, 'webhooks.deliver', { deliveryId: d!._id, attempt: 2 })
    await t.drain()
    expect(at('/dedup')).toHaveLength(1)

    // the subscriber fed the same event again: still one delivery row, no new job
    const event = await db
      .selectFrom('events')
      .selectAll()
      .where('id', '=', d!.eventId)
      .executeTakeFirstOrThrow()
    const jobsBefore = await db
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', 'webhooks.deliver')
      .execute()
    await db.transaction().execute((tx) =>
      t.app.services.webhookDelivery.onEvent(tx, {
        ...event,
        data: event.data as never,
        type: 'deposit.credited',
      }),
    )
    const jobsAfter = await db
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', 'webhooks.deliver')
      .execute()
    expect(jobsAfter.length).toBe(jobsBefore.length)
    const rows = await db
      .selectFrom('webhookDeliveries')
      .select('id')
      .where('endpointId', '=', ep._id)
      .execute()
    expect(rows).toHaveLength(1)
    await t.req({ method: 'DELETE', url: `/v1/webhooks/${ep._id}`, token: ada.token })
  })

  it('two runs of one attempt at once (a lease lost mid-call): the receiver dedups, one attempt is recorded', async () => {
    const ep = await register(ada, { url: r.url('/race'), events: ['deposit.credited'] })
    // the first attempt fails, so the second is due; two workers then run it at once
    r.answers.push(500)
    await deposit(ada, USDC)
    const [d] = (await deliveries(ada, ep._id)).data
    const deliver = t.app.services.webhookDelivery.deliver
    await Promise.all([
      deliver({ deliveryId: d!._id, attempt: 2 }),
      deliver({ deliveryId: d!._id, attempt: 2 }),
    ])
    // (both runs read the delivery before either records it, so both usually send)
    const got = at('/race')
    expect(got.length).toBeGreaterThanOrEqual(2)
    expect(got.length).toBeLessThanOrEqual(3)
    expect(new Set(got.map((g) => g.headers['webhook-id'])).size).toBe(1)
    expect(r.processed.filter((id) => id === d!.eventId)).toHaveLength(1)
    const log = await deliveries(ada, ep._id)
    expect(log.total).toBe(1)
    expect(log.data[0]).toMatchObject({ status: 'delivered', attempts: 2 })
    // the queued job of attempt 2 finds it done
    const before = got.length
    t.clock.advance(MINUTE)
    await t.drain()
    expect(at('/race')).toHaveLength(before)
    await t.req({ method: 'DELETE', url: `/v1/webhooks/${ep._id}`, token: ada.token })
  })
})

describe('production mode', () => {
  it('refuses to call a loopback receiver and logs the refusal as a failed attempt', async () => {
    // https to localhost: taken at registration outside production; the receiver speaks plain
    // http, so the first attempt (development rules) fails its TLS handshake and a second is due
    const ep = await register(ada, {
      url: r.url('/prod').replace('http:', 'https:'),
      events: ['deposit.credited'],
    })
    await deposit(ada, USDC)
    const tried = r.received.length
    const [d] = (await deliveries(ada, ep._id)).data
    // the same delivery, attempted by a worker under the production rules
    const s = t.app.services
    const strict = new WebhookDelivery({
      db: t.database.db,
      clock: t.clock,
      log: s.log,
      jobs: s.jobs,
      secrets: s.secrets,
      policy: { publicOnly: true, httpsOnly: true, timeoutMs: 5_000 },
    })
    expect(d).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null })
    await strict.deliver({ deliveryId: d!._id, attempt: 2 })
    // nothing reached the receiver: localhost resolves to loopback addresses only
    expect(r.received.length).toBe(tried)
    const [after] = (await deliveries(ada, ep._id)).data
    expect(after).toMatchObject({ status: 'pending', attempts: 2, lastStatusCode: null })
    expect(after!.lastError).toMatch(/^refused: localhost resolves to .*, which is not a public address$/)
    await t.req({ method: 'DELETE', url: `/v1/webhooks/${ep._id}`, token: ada.token })
  })
})

describe('rotation and deletion', () => {
  it('signs with the new secret alone after a rotation without overlap; a deleted endpoint gets nothing', async () => {
    const ep = await register(ada, { url: r.url('/rot'), events: ['deposit.credited'] })
    const rot = await t.req({
      method: 'POST',
      url: `/v1/webhooks/${ep._id}/rotate`,
      token: ada.token,
      payload: { previousSecretExpiresIn: 0 },
    })
    expect(rot.statusCode, rot.body).toBe(200)
    const fresh = rot.json().data.secret as string
    expect(fresh).not.toBe(ep.secret)
    expect(rot.json().data.previousSecretExpiresAt).toBeNull()
    await deposit(ada, USDC)
    const [req] = at('/rot')
    expect(String(req!.headers['webhook-signature']).split(' ')).toHaveLength(1)
    expect(verifyAsReceiver(fresh, req!, nowMs())).toMatchObject({ type: 'deposit.credited' })
    expect(() => verifyAsReceiver(ep.secret, req!, nowMs())).toThrow('No matching signature found')

    // deleted while an attempt is due: the job finds nothing to send
    r.answers.push(500)
    await deposit(ada, USDC)
    expect(at('/rot')).toHaveLength(2)
    const del = await t.req({ method: 'DELETE', url: `/v1/webhooks/${ep._id}`, token: ada.token })
    expect(del.statusCode).toBe(200)
    t.clock.advance(MINUTE)
    await t.drain()
    await deposit(ada, USDC)
    expect(at('/rot')).toHaveLength(2)
    const gone = await t.req({ method: 'GET', url: `/v1/webhooks/${ep._id}`, token: ada.token })
    expect(gone.statusCode).toBe(404)
  })
})

describe('permissions', () => {
  it('another user’s endpoint is 404 on every route and never listed; no token is 401', async () => {
    const ep = await register(ada, { url: r.url('/mine'), events: ['deposit.credited'] })
    for (const [method, url] of [
      ['GET', `/v1/webhooks/${ep._id}`],
      ['DELETE', `/v1/webhooks/${ep._id}`],
      ['POST', `/v1/webhooks/${ep._id}/rotate`],
      ['GET', `/v1/webhooks/${ep._id}/deliveries`],
    ] as const) {
      const res = await t.req({ method, url, token: bob.token })
      expect(res.statusCode, `${method} ${url}`).toBe(404)
      expect(res.json().data.code).toBe('NOT_FOUND')
      const anon = await t.req({ method, url })
      expect(anon.statusCode).toBe(401)
    }
    const theirs = await t.req({ method: 'GET', url: '/v1/webhooks', token: bob.token })
    expect(theirs.json().data.data.map((e: { _id: string }) => e._id)).not.toContain(ep._id)
    // Bob's deposit does not reach Ada's endpoint
    await deposit(bob, USDC)
    expect(at('/mine')).toHaveLength(0)
    // still Ada's, unchanged
    expect((await t.req({ method: 'GET', url: `/v1/webhooks/${ep._id}`, token: ada.token })).statusCode).toBe(
      200,
    )
    const bad = await t.req({ method: 'GET', url: '/v1/webhooks/not-an-id', token: ada.token })
    expect(bad.statusCode).toBe(400)
  })
})
