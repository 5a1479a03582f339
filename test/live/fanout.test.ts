// Fan-out of pushes to many sockets across two API processes: every socket receives each push
// addressed to its user once and in order, never one addressed to another user, also when a push is
// written to its sockets in batches with turns of the event loop between them; a socket that
// stops reading is dropped without holding back the others; and sockets opened or closed together
// are counted in presence exactly (written in batches).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultLiveOptions, type LiveOptions } from '../../src/modules/live/hub.ts'
import { publishLive } from '../../src/modules/live/publish.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { type Client, connectReady, createPair, type Pair } from './helpers.ts'

let pair: Pair
let users: TestUser[]
const open: Client[] = []

beforeAll(async () => {
  pair = await createPair()
  users = []
  for (let i = 0; i < 6; i++) users.push(await createUser(pair.a))
}, 120_000)
afterAll(async () => {
  for (const c of open) c.close()
  await pair?.close()
})

const hubs = () => [pair.a.app.services.live, pair.b.services.live]

/** Waits until `done()` holds (re-checked every 20 ms, for at most 60 s). */
async function until(done: () => boolean | Promise<boolean>, what: string) {
  const by = Date.now() + 60_000
  while (!(await done())) {
    if (Date.now() > by) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Three sockets per user across both processes, twelve pushes published back to back: each
 * socket gets its user's pushes once and in order, and none of another user's. */
async function fanOutInOrder() {
  // three sockets per user: two on one process, one on the other
  const sockets: Array<{ user: TestUser; client: Client }> = []
  for (const [i, user] of users.entries())
    for (let k = 0; k < 3; k++) {
      const url = (i + k) % 2 === 0 ? pair.urlA : pair.urlB
      sockets.push({ user, client: await connectReady(url, user.token) })
    }
  open.push(...sockets.map((s) => s.client))
  // rounds alternate between everyone, the even half, and one user; some over the NOTIFY limit
  const audiences = [users, users.filter((_, i) => i % 2 === 0), [users[3]!]]
  const rounds = 12
  const sent = new Map<string, number[]>()
  for (let r = 0; r < rounds; r++) {
    const audience = audiences[r % audiences.length]!
    const pad = r % 4 === 3 ? 'x'.repeat(9000) : ''
    await publishLive(pair.a.database.db, {
      userIds: audience.map((u) => u.id),
      type: 'fanout.test',
      data: { round: r, to: audience.map((u) => u.id), pad },
    })
    for (const u of audience) sent.set(u.id, [...(sent.get(u.id) ?? []), r])
  }
  const received = (c: Client) => c.messages.filter((m) => m.type === 'fanout.test')
  // the last push of each user marks the end of its stream
  for (const { user, client } of sockets) {
    const last = sent.get(user.id)!.at(-1)!
    await client.next((m) => m.type === 'fanout.test' && m.data.round === last, 20_000)
  }
  for (const { user, client } of sockets) {
    const rounds = received(client).map((m) => m.data.round)
    expect(rounds).toEqual(sent.get(user.id))
    for (const m of received(client)) expect(m.data.to).toContain(user.id)
  }
  for (const s of sockets) s.client.close()
}

describe('fan-out across processes', () => {
  it('each socket gets its user’s pushes once, in order, and none of another user’s', fanOutInOrder)

  it('the same when each push is written to a few sockets at a time (later pushes wait for it)', async () => {
    // a push to nine sockets of a process takes five turns of its event loop; the pushes notified
    // meanwhile (some of them stored, over the NOTIFY limit) queue behind it
    for (const hub of hubs()) (hub.options as LiveOptions).fanoutBatch = 2
    try {
      await fanOutInOrder()
    } finally {
      for (const hub of hubs()) (hub.options as LiveOptions).fanoutBatch = defaultLiveOptions.fanoutBatch
    }
  })

  it('a socket that stops reading is dropped; the others get every push meanwhile', async () => {
    const [ana, ben] = users
    for (const hub of hubs()) (hub.options as LiveOptions).maxBufferedBytes = 512 * 1024
    try {
      const slow = await connectReady(pair.urlA, ana!.token)
      const fastHere = await connectReady(pair.urlA, ben!.token)
      const fastThere = await connectReady(pair.urlB, ana!.token)
      open.push(slow, fastHere, fastThere)
      const before = pair.a.app.services.live.size
      // the slow client reads nothing more: the server's send buffer for it fills up
      const tcp = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket
      tcp.pause()
      // ~6 MB to each socket (pushes under the NOTIFY limit), each published once the sockets that
      // read have the one before: more than the kernel's buffers for the paused socket and the
      // limit take
      const pushes = 800
      const filler = 'y'.repeat(7500)
      const rounds = (c: Client) => c.messages.filter((m) => m.type === 'fanout.big').map((m) => m.data.round)
      for (let r = 0; r < pushes; r++) {
        await publishLive(pair.a.database.db, {
          userIds: [ana!.id, ben!.id],
          type: 'fanout.big',
          data: { round: r, filler },
        })
        for (const c of [fastHere, fastThere])
          await c.next((m) => m.type === 'fanout.big' && m.data.round === r, 30_000)
      }
      // the slow one still paused, the others received every push, in order
      for (const c of [fastHere, fastThere]) {
        expect(c.closed).toBeUndefined()
        expect(rounds(c)).toEqual(Array.from({ length: pushes }, (_, i) => i))
      }
      // and the process that held the slow socket dropped it
      await until(() => pair.a.app.services.live.size === before - 1, 'the slow socket to be dropped')
      tcp.resume()
      await slow.closedWith(10_000)
      expect(fastHere.closed).toBeUndefined()
      expect(fastThere.closed).toBeUndefined()
      fastHere.close()
      fastThere.close()
    } finally {
      for (const hub of hubs()) (hub.options as LiveOptions).maxBufferedBytes = 1024 * 1024
    }
  }, 180_000)
})

describe('presence of sockets opened and closed together', () => {
  it('counts every socket per process, ONLINE while any is open, OFFLINE once all are closed', async () => {
    const db = pair.a.database.db
    const subjects = users.slice(0, 4)
    // the sockets of the tests before are gone (each server sees a close a moment after its client)
    await until(() => hubs().every((h) => h.size === 0), 'the earlier sockets to be closed')
    for (const hub of hubs()) await hub.settle()
    // all at once: four sockets per user on A and three on B
    const opening = subjects.flatMap((u) => [
      ...Array.from({ length: 4 }, () => connectReady(pair.urlA, u.token)),
      ...Array.from({ length: 3 }, () => connectReady(pair.urlB, u.token)),
    ])
    const clients = await Promise.all(opening)
    open.push(...clients)
    const ids = subjects.map((u) => u.id)
    const counts = async () =>
      (
        await db
          .selectFrom('livePresence')
          .select(['processId', 'userId', 'sockets'])
          .where('userId', 'in', ids)
          .execute()
      )
        .map((r) => r.sockets)
        .sort()
    expect(await counts()).toEqual([3, 3, 3, 3, 4, 4, 4, 4])
    const statuses = async () =>
      (await db.selectFrom('users').select('socketStatus').where('id', 'in', ids).execute()).map(
        (r) => r.socketStatus,
      )
    expect(await statuses()).toEqual(['ONLINE', 'ONLINE', 'ONLINE', 'ONLINE'])
    // all but one socket of the first user close at once
    const keep = clients[0]!
    const closing = clients.slice(1)
    for (const c of closing) c.close()
    await Promise.all(closing.map((c) => c.closedWith()))
    // (the server sees each close a moment after the client does)
    await until(async () => (await counts()).join() === '1', 'the closed sockets to be uncounted')
    for (const hub of hubs()) await hub.settle()
    const byUser = await db
      .selectFrom('users')
      .select(['id', 'socketStatus'])
      .where('id', 'in', ids)
      .execute()
    for (const row of byUser) expect(row.socketStatus).toBe(row.id === subjects[0]!.id ? 'ONLINE' : 'OFFLINE')
    keep.close()
    await keep.closedWith()
    await until(async () => (await counts()).length === 0, 'the last socket to be uncounted')
    await pair.a.app.services.live.settle()
    expect(await statuses()).toEqual(['OFFLINE', 'OFFLINE', 'OFFLINE', 'OFFLINE'])
  })
})
