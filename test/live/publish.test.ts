// publishLive: one notification per push, delivered on commit only; oversized payloads by reference.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/index.ts'
import type { ChannelListener } from '../../src/db/listen.ts'
import { LIVE_CHANNEL, type LiveWire, publishLive } from '../../src/modules/live/publish.ts'
import { liveRepo } from '../../src/modules/live/repo.ts'
import { openTestDatabase } from '../helpers/app.ts'

let database: Database
let listener: ChannelListener
const received: LiveWire[] = []
const waiters: Array<() => void> = []

/** Resolves once `count` messages have arrived (fails after `ms`). */
function waitFor(count: number, ms = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${received.length} of ${count} messages`)), ms)
    const check = () => {
      if (received.length >= count) {
        clearTimeout(timer)
        resolve()
      } else waiters.push(check)
    }
    check()
  })
}

beforeAll(async () => {
  database = await openTestDatabase()
  listener = await database.listen(LIVE_CHANNEL, {
    onMessage: (payload) => {
      received.push(JSON.parse(payload))
      for (const w of waiters.splice(0)) w()
    },
  })
})
afterAll(async () => {
  await listener.close()
  await database.close()
})

describe('publishLive', () => {
  it('delivers on commit, never for a rolled-back transaction', async () => {
    received.length = 0
    await database.db
      .transaction()
      .execute(async (tx) => {
        await publishLive(tx, { userIds: ['u-rolled-back'], type: 'test', data: { n: 0 } })
        throw new Error('roll back')
      })
      .catch(() => {})
    await database.db.transaction().execute(async (tx) => {
      await publishLive(tx, { userIds: ['a', 'b', 'a'], type: 'test', data: { n: 1 } })
    })
    await waitFor(1)
    expect(received).toEqual([{ u: ['a', 'b'], t: 'test', d: { n: 1 } }])
  })

  it('sends nothing without an audience', async () => {
    received.length = 0
    await database.db.transaction().execute(async (tx) => {
      await publishLive(tx, { userIds: [], type: 'test', data: 1 })
      await publishLive(tx, { userIds: ['c'], type: 'test', data: 2 })
    })
    await waitFor(1)
    expect(received).toEqual([{ u: ['c'], t: 'test', d: 2 }])
  })

  it('stores a payload over the NOTIFY limit and sends its reference', async () => {
    received.length = 0
    const big = 'x'.repeat(20_000)
    await database.db.transaction().execute(async (tx) => {
      await publishLive(tx, { userIds: ['d'], type: 'big', data: { big } })
    })
    await waitFor(1)
    const wire = received[0]!
    expect('ref' in wire).toBe(true)
    const stored = await liveRepo.loadMessage(database.db, (wire as { ref: string }).ref)
    expect(JSON.parse(String(typeof stored === 'string' ? stored : JSON.stringify(stored)))).toEqual({
      u: ['d'],
      t: 'big',
      d: { big },
    })
  })
})
