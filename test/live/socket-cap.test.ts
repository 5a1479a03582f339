// The cap on open live sockets per account (RATE_LIMIT_LIVE_SOCKETS, 20 by default; 3 here): past
// it in one process, a new socket is taken and the account's oldest is closed with 4429 (a new tab
// wins over a forgotten one); another account is not affected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { LIVE_SOCKETS_PER_USER } from '../../src/http/write-limits.ts'
import { CLOSE } from '../../src/modules/live/hub.ts'
import { createTestApp, TEST_ENV, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { type Client, connectReady, listen } from './helpers.ts'

const CAP = 3
let t: TestApp
let url: string
const open: Client[] = []

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_LIVE_SOCKETS: String(CAP) } })
  url = await listen(t.app)
})
afterAll(async () => {
  for (const c of open) c.close()
  await t?.close()
})

describe('open live sockets per account', () => {
  it('20 by default', () => {
    expect(LIVE_SOCKETS_PER_USER).toBe(20)
    expect(loadConfig({ ...TEST_ENV, DATA_DIR: '/tmp/wp-live-cap' }).rateLimit.liveSocketsPerUser).toBe(20)
  })

  it(`keeps at most the cap: the next one closes the oldest with ${CLOSE.tooMany}`, async () => {
    const ada = await createUser(t)
    const bob = await createUser(t)
    const adas: Client[] = []
    for (let i = 0; i < CAP; i++) adas.push(await connectReady(url, ada.token))
    open.push(...adas)
    const bobs = await connectReady(url, bob.token)
    open.push(bobs)
    expect(adas.every((c) => !c.closed)).toBe(true)

    const newest = await connectReady(url, ada.token)
    open.push(newest)
    expect(await adas[0]!.closedWith()).toEqual({
      code: CLOSE.tooMany,
      reason: 'too many open sockets for this account',
    })
    // the others, the new one and Bob's stay open
    expect(adas.slice(1).every((c) => !c.closed)).toBe(true)
    expect(newest.closed).toBeUndefined()
    expect(bobs.closed).toBeUndefined()
  })
})
