// The live WebSocket across two API processes on one database: authentication, pushes made
// through one process reaching a socket on the other, presence, heartbeat and revoked sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { publishLive } from '../../src/modules/live/publish.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { type Client, connect, connectReady, createPair, listen, type Pair } from './helpers.ts'

let pair: Pair
let alice: TestUser
let bob: TestUser
const open: Client[] = []

async function statusOf(user: TestUser) {
  // As another user sees it in the public profile (the user's own token may be revoked).
  const res = await pair.a.req({ method: 'GET', url: `/v1/account/user/${user.id}`, token: bob.token })
  return res.json().data.socket.status as string
}

/** Polls until the user's socket.status is `want` (fails after 5 s). */
async function expectStatus(user: TestUser, want: string) {
  const until = Date.now() + 5000
  let status = await statusOf(user)
  while (status !== want && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50))
    status = await statusOf(user)
  }
  expect(status).toBe(want)
}

beforeAll(async () => {
  pair = await createPair()
  alice = await createUser(pair.a)
  bob = await createUser(pair.a)
}, 120_000)
afterAll(async () => {
  for (const c of open) c.close()
  await pair?.close()
})

describe('authentication', () => {
  it('answers a plain GET with 426 in the error envelope', async () => {
    const res = await pair.a.req({ method: 'GET', url: '/v1/live', token: alice.token })
    expect(res.statusCode).toBe(426)
    expect(res.json()).toEqual({
      status: 'error',
      message: 'Connect with a WebSocket handshake',
      data: { code: 'UPGRADE_REQUIRED' },
    })
  })

  it('refuses a bad token in the header or the query before the upgrade', async () => {
    await expect(connect(pair.urlB, 'not-a-token')).rejects.toMatchObject({ statusCode: 401 })
    await expect(connect(pair.urlB, 'not-a-token', 'query')).rejects.toMatchObject({ statusCode: 401 })
  })

  it('closes a socket whose first message is not a valid auth message', async () => {
    const none = await connect(pair.urlB)
    none.ws.send(JSON.stringify({ type: 'ping' }))
    expect((await none.closedWith()).code).toBe(4401)
    const bad = await connect(pair.urlB, 'not-a-token', 'message')
    expect((await bad.closedWith()).code).toBe(4401)
    expect(bad.messages).toEqual([])
  })

  it('accepts the token in the header, the query or a first auth message', async () => {
    for (const via of ['header', 'query', 'message'] as const) {
      const c = await connectReady(pair.urlB, alice.token, via)
      expect((await c.nextOfType('ready')).data).toEqual({ userId: alice.id })
      c.close()
      await c.closedWith()
    }
  })
})

describe('pushes across processes', () => {
  it('a push committed through one process reaches a socket on the other, and only its audience', async () => {
    const onB = await connectReady(pair.urlB, alice.token)
    const bobOnA = await connectReady(pair.urlA, bob.token)
    open.push(onB, bobOnA)
    await pair.a.database.db.transaction().execute(async (tx) => {
      await publishLive(tx, { userIds: [alice.id], type: 'wallet.deposit', data: { amount: '1.5' } })
    })
    expect(await onB.nextOfType('wallet.deposit', 1000)).toEqual({
      type: 'wallet.deposit',
      data: { amount: '1.5' },
    })
    // Bob's socket answers its own ping, and never saw Alice's push.
    expect((await bobOnA.request('ping', null)).type).toBe('pong')
    expect(bobOnA.messages.map((m) => m.type)).toEqual(['ready', 'pong'])
  })

  it('a rolled-back change pushes nothing', async () => {
    const c = await connectReady(pair.urlB, alice.token)
    open.push(c)
    await pair.a.database.db
      .transaction()
      .execute(async (tx) => {
        await publishLive(tx, { userIds: [alice.id], type: 'rolled.back', data: null })
        throw new Error('roll back')
      })
      .catch(() => {})
    await pair.a.database.db.transaction().execute(async (tx) => {
      await publishLive(tx, { userIds: [alice.id], type: 'committed', data: null })
    })
    await c.nextOfType('committed')
    expect(c.messages.map((m) => m.type)).toEqual(['ready', 'committed'])
  })

  it('delivers a payload over the NOTIFY limit through its stored copy', async () => {
    const c = await connectReady(pair.urlB, alice.token)
    open.push(c)
    const text = 'é'.repeat(6000)
    await pair.a.database.db.transaction().execute(async (tx) => {
      await publishLive(tx, { userIds: [alice.id], type: 'big', data: { text } })
    })
    expect((await c.nextOfType('big')).data).toEqual({ text })
  })

  it('answers unknown or malformed requests with an error, keeping the socket', async () => {
    const c = await connectReady(pair.urlA, bob.token)
    open.push(c)
    expect(await c.request('nope', {})).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } })
    c.ws.send('not json')
    await c.next((m) => m.type === 'error' && m.id === undefined)
    expect((await c.request('ping', null)).type).toBe('pong')
  })
})

describe('presence', () => {
  it('flips ONLINE while a socket is open on any process and OFFLINE after the last closes', async () => {
    const carol = await createUser(pair.a)
    expect(await statusOf(carol)).toBe('OFFLINE')
    const onA = await connectReady(pair.urlA, carol.token)
    const onB = await connectReady(pair.urlB, carol.token)
    await expectStatus(carol, 'ONLINE')
    onA.close()
    await onA.closedWith()
    await pair.a.app.services.live.settle()
    expect(await statusOf(carol)).toBe('ONLINE')
    onB.close()
    await onB.closedWith()
    await expectStatus(carol, 'OFFLINE')
    // The user's own form says the same.
    const own = await pair.a.req({ method: 'GET', url: '/v1/account', token: carol.token })
    expect(own.json().data.socket.status).toBe('OFFLINE')
  })

  it('counts each socket of one process: closing one of two keeps the user ONLINE', async () => {
    const gus = await createUser(pair.a)
    const first = await connectReady(pair.urlA, gus.token)
    const second = await connectReady(pair.urlA, gus.token)
    open.push(second)
    const counts = () =>
      pair.a.database.db.selectFrom('livePresence').select('sockets').where('userId', '=', gus.id).execute()
    expect(await counts()).toEqual([{ sockets: 2 }])
    first.close()
    await first.closedWith()
    await pair.a.app.services.live.settle()
    expect(await counts()).toEqual([{ sockets: 1 }])
    expect(await statusOf(gus)).toBe('ONLINE')
  })

  it('a process that stopped beating loses its users’ presence', async () => {
    const dave = await createUser(pair.a)
    const db = pair.a.database.db
    await db
      .insertInto('liveProcesses')
      .values({ id: 'gone-host:1', heartbeatAt: new Date(Date.now() - 3600_000) })
      .execute()
    await db
      .insertInto('livePresence')
      .values({ processId: 'gone-host:1', userId: dave.id, sockets: 2 })
      .execute()
    await db.updateTable('users').set({ socketStatus: 'ONLINE' }).where('id', '=', dave.id).execute()
    pair.b.services.live.tickNow()
    await pair.b.services.live.settle()
    expect(await statusOf(dave)).toBe('OFFLINE')
    const left = await db.selectFrom('liveProcesses').select('id').where('id', '=', 'gone-host:1').execute()
    expect(left).toEqual([])
  })

  it('a process that shuts down sets its users OFFLINE', async () => {
    const erin = await createUser(pair.a)
    const third = await buildApp({
      config: pair.a.config,
      database: pair.a.database,
      clock: pair.a.clock,
      logger: false,
    })
    await third.ready()
    const url = await listen(third)
    const c = await connectReady(url, erin.token)
    await expectStatus(erin, 'ONLINE')
    await third.close()
    expect((await c.closedWith()).code).toBe(1001)
    expect(await statusOf(erin)).toBe('OFFLINE')
  })
})

describe('sessions', () => {
  it('a socket of a revoked session is closed at the next heartbeat', async () => {
    const frank = await createUser(pair.a)
    const c = await connectReady(pair.urlB, frank.token)
    const out = await pair.a.req({ method: 'POST', url: '/v1/account/logout', token: frank.token })
    expect(out.statusCode).toBe(200)
    // The other process learns of the revocation through its own session notifications.
    const until = Date.now() + 5000
    while ((await pair.b.services.auth.authenticate(frank.token)) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 20))
    }
    pair.b.services.live.tickNow()
    expect((await c.closedWith()).code).toBe(4401)
    await expectStatus(frank, 'OFFLINE')
  })

  it('a socket that does not answer pings is dropped', async () => {
    const c = await connectReady(pair.urlA, alice.token)
    // ws answers pings by itself; stop it from doing so.
    ;(c.ws as unknown as { pong: () => void }).pong = () => {}
    c.ws.removeAllListeners('ping')
    ;(c.ws as unknown as { _receiver: { removeAllListeners(e: string): void } })._receiver.removeAllListeners(
      'ping',
    )
    pair.a.app.services.live.tickNow()
    pair.a.app.services.live.tickNow()
    const closed = await c.closedWith()
    expect(closed.code).toBe(1006)
  })
})
