// The cap on open live sockets per account (RATE_LIMIT_LIVE_SOCKETS, 20 by default; 3 here): past
// it in one process, a new socket is taken and the account's oldest is closed with 4429 (a new tab
// wins over a forgotten one); another account is not affected. The cap holds across API processes
// on one database: a socket opened on one process closes one the account holds on another.
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { LIVE_SOCKETS_PER_USER } from '../../src/http/write-limits.ts'
import { CLOSE } from '../../src/modules/live/hub.ts'
import { createTestApp, TEST_ENV, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { type Client, connectReady, listen } from './helpers.ts'

const CAP = 3
let t: TestApp
let other: FastifyInstance
let url: string
let otherUrl: string
const open: Client[] = []

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_LIVE_SOCKETS: String(CAP) } })
  url = await listen(t.app)
  // a second API process on the same database
  other = await buildApp({ config: t.config, database: t.database, clock: t.clock, logger: false })
  await other.ready()
  otherUrl = await listen(other)
})
afterAll(async () => {
  for (const c of open) c.close()
  await other?.close()
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

describe('across API processes', () => {
  it('a socket past the cap on one process closes the oldest the account holds on another', async () => {
    const cy = await createUser(t)
    const dee = await createUser(t)
    const there: Client[] = []
    for (let i = 0; i < CAP; i++) there.push(await connectReady(otherUrl, cy.token))
    open.push(...there)
    const dees = await connectReady(otherUrl, dee.token)
    open.push(dees)

    const here = await connectReady(url, cy.token)
    open.push(here)
    expect(await there[0]!.closedWith()).toEqual({
      code: CLOSE.tooMany,
      reason: 'too many open sockets for this account',
    })
    expect(there.slice(1).every((c) => !c.closed)).toBe(true)
    expect(here.closed).toBeUndefined()
    expect(dees.closed).toBeUndefined()

    // two more here: each closes one more of the other process's (the account keeps CAP in all)
    const more = [await connectReady(url, cy.token), await connectReady(url, cy.token)]
    open.push(...more)
    expect((await there[1]!.closedWith()).code).toBe(CLOSE.tooMany)
    expect((await there[2]!.closedWith()).code).toBe(CLOSE.tooMany)
    expect([here, ...more].every((c) => !c.closed)).toBe(true)
    // and the next one here closes this process's oldest
    const last = await connectReady(url, cy.token)
    open.push(last)
    expect((await here.closedWith()).code).toBe(CLOSE.tooMany)
    expect([...more, last].every((c) => !c.closed)).toBe(true)
    expect(dees.closed).toBeUndefined()
  })
})
