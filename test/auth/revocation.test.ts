// Revocation across API processes, as the README promises it: a token logged out through one
// process is refused by the other on its very next request, with no wait for anything but the
// logout's own answer. Two application instances on one database; on PostgreSQL each has its own
// connection pool, read caches and notification connections, as two processes would. Repeated many
// times, each time with the session cached in the other process first, so the cache's answer is
// what is put to the test.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { type Database, openPostgres } from '../../src/db/index.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let a: TestApp
let b: FastifyInstance
let bDatabase: Database | undefined

beforeAll(async () => {
  a = await createTestApp()
  const url = (a.database as Database & { url?: string }).url
  // PostgreSQL: a database connection of B's own. PGlite is one process's database: B shares it.
  bDatabase = url ? openPostgres(url, 5) : undefined
  b = await buildApp({ config: a.config, database: bDatabase ?? a.database, clock: a.clock, logger: false })
  await b.ready()
})

afterAll(async () => {
  await b?.close()
  await bDatabase?.close()
  await a?.close()
})

type Inject = (opts: InjectOptions & { token?: string }) => Promise<LightMyRequestResponse>
const on =
  (app: FastifyInstance): Inject =>
  ({ token, ...rest }) =>
    app.inject({ ...rest, headers: token ? { authorization: `Bearer ${token}` } : {} })

const sessionOf = (token: string): string =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti

async function login(via: Inject, user: TestUser): Promise<string> {
  const res = await via({
    method: 'POST',
    url: '/v1/auth/login',
    payload: { email: user.email, password: user.password },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data.token
}

const ROUNDS = 25

describe('a logout through one process is refused by the other on its very next request', () => {
  for (const [name, from, to] of [
    ['logout on A, read on B', () => a.app, () => b],
    ['logout on B, read on A', () => b, () => a.app],
  ] as const) {
    it(`${name}, ${ROUNDS} times`, async () => {
      const user = await createUser(a)
      const outVia = on(from())
      const readVia = on(to())
      const readerCache = to().services.auth.sessionCache!
      for (let i = 0; i < ROUNDS; i++) {
        const token = await login(outVia, user)
        // the reader answers the token and keeps its session cached
        expect((await readVia({ method: 'GET', url: '/v1/account', token })).statusCode).toBe(200)
        expect((await readVia({ method: 'GET', url: '/v1/account', token })).statusCode).toBe(200)
        expect(readerCache.get(sessionOf(token)), `round ${i}: cached`).toMatchObject({ userId: user.id })

        const out = await outVia({ method: 'POST', url: '/v1/account/logout', token })
        expect(out.statusCode, out.body).toBe(200)
        // at once, with nothing awaited in between
        const res = await readVia({ method: 'GET', url: '/v1/account', token })
        expect(res.statusCode, `round ${i}`).toBe(401)
        expect(res.json()).toMatchObject({ status: 'error', data: { code: 'UNAUTHENTICATED' } })
      }
    })
  }

  it('requests at the same moment: all answered, then all refused after a logout', async () => {
    const user = await createUser(a)
    const token = await login(on(a.app), user)
    const readB = on(b)
    expect((await readB({ method: 'GET', url: '/v1/account', token })).statusCode).toBe(200)
    const many = await Promise.all(
      Array.from({ length: 20 }, () => readB({ method: 'GET', url: '/v1/account', token })),
    )
    expect(many.map((r) => r.statusCode)).toEqual(Array(20).fill(200))
    expect((await on(a.app)({ method: 'POST', url: '/v1/account/logout', token })).statusCode).toBe(200)
    const after = await Promise.all(
      Array.from({ length: 20 }, () => readB({ method: 'GET', url: '/v1/account', token })),
    )
    expect(after.map((r) => r.statusCode)).toEqual(Array(20).fill(401))
  })
})
