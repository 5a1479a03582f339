// A test delivery (POST /v1/webhooks/{id}/test), as an integrator uses it to check a receiver:
// one `webhook.test` event to the named endpoint only, signed (verified with the
// `standardwebhooks` package), retried and logged like every delivery; another user's endpoint is
// 404 and the call needs a session. Its limit per account and per IP is provoked with the others
// in test/http/write-limits.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
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
})
afterAll(async () => {
  await t?.close()
  await r?.close()
})

async function register(user: TestUser, path: string) {
  const res = await t.req({
    method: 'POST',
    url: '/v1/webhooks',
    token: user.token,
    payload: { url: r.url(path), events: ['deposit.credited'] },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as { _id: string; secret: string }
}

const sendTest = (id: string, token?: string) =>
  t.req({ method: 'POST', url: `/v1/webhooks/${id}/test`, token })
const at = (path: string) => r.received.filter((x) => x.path === path)

describe('POST /v1/webhooks/{id}/test', () => {
  it('delivers one signed webhook.test event to that endpoint only, logged like every delivery', async () => {
    const ep = await register(ada, '/test-one')
    const other = await register(ada, '/test-other')
    const res = await sendTest(ep._id, ada.token)
    expect(res.statusCode, res.body).toBe(200)
    const queued = res.json().data
    expect(queued).toMatchObject({ endpointId: ep._id, type: 'webhook.test', status: 'pending', attempts: 0 })
    await t.drain()

    const got = at('/test-one')
    expect(got).toHaveLength(1)
    expect(at('/test-other')).toHaveLength(0)
    const payload = verifyAsReceiver(ep.secret, got[0]!, t.clock.now().getTime())
    expect(payload).toMatchObject({
      id: queued.eventId,
      type: 'webhook.test',
      collectionId: null,
      data: { endpointId: ep._id },
    })
    expect(got[0]!.headers['webhook-id']).toBe(queued.eventId)
    // the other endpoint's secret does not verify it
    expect(() => verifyAsReceiver(other.secret, got[0]!, t.clock.now().getTime())).toThrow()

    const log = await t.req({ method: 'GET', url: `/v1/webhooks/${ep._id}/deliveries`, token: ada.token })
    expect(log.json().data.data[0]).toMatchObject({
      _id: queued._id,
      type: 'webhook.test',
      status: 'delivered',
      attempts: 1,
      lastStatusCode: 200,
    })
  })

  it('is retried on the schedule when the receiver fails, each test a new event', async () => {
    const ep = await register(ada, '/test-retry')
    r.answers.push(500)
    const first = (await sendTest(ep._id, ada.token)).json().data
    await t.drain()
    let log = await t.req({ method: 'GET', url: `/v1/webhooks/${ep._id}/deliveries`, token: ada.token })
    expect(log.json().data.data[0]).toMatchObject({
      _id: first._id,
      status: 'pending',
      attempts: 1,
      lastStatusCode: 500,
    })
    t.clock.advance(61_000)
    await t.drain()
    log = await t.req({ method: 'GET', url: `/v1/webhooks/${ep._id}/deliveries`, token: ada.token })
    expect(log.json().data.data[0]).toMatchObject({ _id: first._id, status: 'delivered', attempts: 2 })
    const got = at('/test-retry')
    expect(got.map((g) => g.headers['webhook-id'])).toEqual([first.eventId, first.eventId])
    expect(got.map((g) => g.headers['webhook-attempt'])).toEqual(['1', '2'])

    const second = (await sendTest(ep._id, ada.token)).json().data
    expect(second.eventId).not.toBe(first.eventId)
    await t.drain()
    expect(at('/test-retry').map((g) => g.headers['webhook-id'])).toEqual([
      first.eventId,
      first.eventId,
      second.eventId,
    ])
  })

  it("answers 404 for another user's endpoint or an unknown id, 401 without a session, and sends nothing", async () => {
    const ep = await register(ada, '/test-private')
    const before = r.received.length
    const foreign = await sendTest(ep._id, bob.token)
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json().data.code).toBe('NOT_FOUND')
    expect((await sendTest('a'.repeat(24), ada.token)).statusCode).toBe(404)
    const anonymous = await sendTest(ep._id)
    expect(anonymous.statusCode).toBe(401)
    await t.drain()
    expect(r.received.length).toBe(before)
    const log = await t.req({ method: 'GET', url: `/v1/webhooks/${ep._id}/deliveries`, token: ada.token })
    expect(log.json().data.total).toBe(0)
  })
})
