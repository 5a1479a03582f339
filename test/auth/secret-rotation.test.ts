// Rotating JWT_SECRET without an outage: with JWT_SECRET_PREVIOUS (and its window), tokens made
// under the old secret keep working until the window closes (mailed codes and file URLs have
// secrets of their own: test/auth/purpose-secrets.test.ts), while
// everything new is signed with the new secret only and names it; and revoking every session, by
// an operator or with `npm run keys -- revoke-sessions`, refuses every token at once in every process.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { type ConfigError, loadConfig } from '../../src/config.ts'
import { type Database, openPostgres } from '../../src/db/index.ts'
import { TokenService } from '../../src/modules/auth/tokens.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import { UrlSigner } from '../../src/platform/storage/url-signer.ts'
import { adminEnv, createAdmin, runId } from '../admin/helpers.ts'
import { createTestApp, TEST_ENV, type TestApp } from '../helpers/app.ts'
import { createUser, lastCode, type TestUser } from '../helpers/factories.ts'

const OLD = TEST_ENV.JWT_SECRET
const NEW = 'rotated-secret-rotated-secret-rotated-0123'
const DAY = 86_400_000

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig({ ...TEST_ENV, DATABASE_URL: 'postgres://x@127.0.0.1/x', JWT_SECRET: NEW, ...env })
    return []
  } catch (err) {
    return (err as ConfigError).problems
  }
}

describe('JWT_SECRET_PREVIOUS', () => {
  it('goes with JWT_SECRET_PREVIOUS_UNTIL, differs from the current secret, and names a time', () => {
    expect(problemsOf({ JWT_SECRET_PREVIOUS: OLD })).toEqual([
      'JWT_SECRET_PREVIOUS and JWT_SECRET_PREVIOUS_UNTIL go together: set both or neither',
    ])
    expect(
      problemsOf({ JWT_SECRET_PREVIOUS: NEW, JWT_SECRET_PREVIOUS_UNTIL: '2030-01-01T00:00:00Z' }),
    ).toEqual(['JWT_SECRET_PREVIOUS must differ from JWT_SECRET'])
    expect(problemsOf({ JWT_SECRET_PREVIOUS: OLD, JWT_SECRET_PREVIOUS_UNTIL: 'next week' })[0]).toMatch(
      /JWT_SECRET_PREVIOUS_UNTIL must be an ISO 8601 time/,
    )
    const config = loadConfig({
      ...TEST_ENV,
      JWT_SECRET: NEW,
      JWT_SECRET_PREVIOUS: OLD,
      JWT_SECRET_PREVIOUS_UNTIL: '2030-01-01T00:00:00Z',
    })
    expect(config.jwtSecretPrevious).toEqual({ secret: OLD, until: new Date('2030-01-01T00:00:00Z') })
  })

  it('lets tokens and file URLs of the old secret verify until the window closes, never sign', async () => {
    const clock = new ManualClock()
    const until = new Date(clock.now().getTime() + DAY)
    const before = new TokenService(OLD, clock)
    const oldToken = (await before.access('a'.repeat(24), 'b'.repeat(24))).token
    const rotated = new TokenService({ current: NEW, previous: OLD, previousUntil: until }, clock)
    const newToken = (await rotated.access('a'.repeat(24), 'c'.repeat(24))).token
    expect(rotated.verifyAccess(oldToken)).toEqual({ userId: 'a'.repeat(24), sessionId: 'b'.repeat(24) })
    expect(rotated.verifyAccess(newToken)?.sessionId).toBe('c'.repeat(24))
    // signed with the new secret only, and naming it: a process still on the old secret refuses it
    expect(before.verifyAccess(newToken)).toBeUndefined()
    const header = JSON.parse(Buffer.from(newToken.split('.')[0]!, 'base64url').toString())
    expect(header.kid).toMatch(/^[A-Za-z0-9_-]{8}$/)
    // a kid of no secret accepted here is refused without trying the others
    expect(new TokenService(NEW, clock).verifyAccess(oldToken)).toBeUndefined()

    // URL_SIGNING_SECRET rotates the same way, naming its key in each URL (`kid`)
    const oldUrl = new UrlSigner(OLD, clock).sign('private/u/f', 3600)
    const signer = new UrlSigner({ current: NEW, previous: OLD, previousUntil: until }, clock)
    const check = (s: UrlSigner) =>
      s.verify('private/u/f', String(oldUrl.expires), oldUrl.signature, oldUrl.kid)
    expect(check(signer)).toBe('valid')
    expect(signer.sign('private/u/f', 60).kid).not.toBe(oldUrl.kid)
    expect(check(new UrlSigner(NEW, clock))).toBe('unknown-key')

    clock.advance(DAY + 1000)
    const later = new TokenService({ current: NEW, previous: OLD, previousUntil: until }, clock)
    expect(later.verifyAccess(oldToken)).toBeUndefined()
    expect(later.verifyAccess(newToken)?.sessionId).toBe('c'.repeat(24))
  })
})

describe('a rotation on a running service', () => {
  let t: TestApp
  let rotated: FastifyInstance
  let rotatedDb: Database | undefined
  beforeAll(async () => {
    t = await createTestApp()
    const url = (t.database as Database & { url?: string }).url
    rotatedDb = url ? openPostgres(url, 5) : undefined
    const config = {
      ...t.config,
      jwtSecret: NEW,
      jwtSecretPrevious: { secret: OLD, until: new Date(t.clock.now().getTime() + DAY) },
    }
    rotated = await buildApp({ config, database: rotatedDb ?? t.database, clock: t.clock, logger: false })
    await rotated.ready()
  })
  afterAll(async () => {
    await rotated?.close()
    await rotatedDb?.close()
    await t?.close()
  })

  it('keeps sessions and the codes mailed before it, until the window closes', async () => {
    const user = await createUser(t)
    const as = (token: string, app = rotated) =>
      app.inject({ method: 'GET', url: '/v1/account', headers: { authorization: `Bearer ${token}` } })
    // a code for a sensitive action, mailed (and hashed) by the process on the old secret
    expect(
      (await t.req({ method: 'POST', url: '/v1/account/2fa/email', token: user.token })).statusCode,
    ).toBe(200)
    const code = await lastCode(t, user.email)
    expect((await as(user.token)).statusCode).toBe(200)
    await expect(
      (
        rotated as unknown as { services: TestApp['app']['services'] }
      ).services.accountSecurity.verifySensitiveCode(user.id, code),
    ).resolves.toBeUndefined()
    t.clock.advance(DAY + 1000)
    expect((await as(user.token)).statusCode).toBe(401)
  })
})

describe('revoking every session', () => {
  let t: TestApp
  let other: FastifyInstance
  let otherDb: Database | undefined
  let admin: TestUser
  const run = runId()
  beforeAll(async () => {
    t = await createTestApp({ env: adminEnv(run) })
    admin = await createAdmin(t, run)
    const url = (t.database as Database & { url?: string }).url
    otherDb = url ? openPostgres(url, 5) : undefined
    other = await buildApp({
      config: t.config,
      database: otherDb ?? t.database,
      clock: t.clock,
      logger: false,
    })
    await other.ready()
  })
  afterAll(async () => {
    await other?.close()
    await otherDb?.close()
    await t?.close()
  })
  const status = (app: FastifyInstance, token: string) =>
    app
      .inject({ method: 'GET', url: '/v1/account', headers: { authorization: `Bearer ${token}` } })
      .then((r) => r.statusCode)

  it('refuses every token in every process at once, the operator’s too, audited', async () => {
    const users = [await createUser(t), await createUser(t)]
    // cached in both processes first, so the caches' answers are what is put to the test
    for (const u of users)
      expect([await status(t.app, u.token), await status(other, u.token)]).toEqual([200, 200])
    const res = await t.req({
      method: 'POST',
      url: '/v1/admin/sessions/revoke-all',
      token: admin.token,
      payload: { reason: 'JWT_SECRET leaked in a log: rotated' },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data.revoked).toBeGreaterThanOrEqual(3)
    for (const u of [...users, admin])
      expect([await status(t.app, u.token), await status(other, u.token)]).toEqual([401, 401])
    const audit = await t.database.db
      .selectFrom('adminAudit')
      .select(['reason', 'details'])
      .where('action', '=', 'sessions.revoke-all')
      .executeTakeFirstOrThrow()
    expect(audit).toMatchObject({
      reason: 'JWT_SECRET leaked in a log: rotated',
      details: { revoked: res.json().data.revoked },
    })
    // a new sign-in works as before
    const again = await t.req({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: users[0]!.email, password: users[0]!.password },
    })
    expect(again.statusCode).toBe(200)
    expect(await status(other, again.json().data.token)).toBe(200)
  })

  it.runIf(inject('testDb') === 'postgres')(
    'is also `npm run keys -- revoke-sessions`, heard by running processes',
    async () => {
      const user = await createUser(t)
      expect([await status(t.app, user.token), await status(other, user.token)]).toEqual([200, 200])
      const url = (t.database as Database & { url?: string }).url!
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'src/keys.ts', 'revoke-sessions'],
        {
          env: {
            ...process.env,
            ...TEST_ENV,
            DATABASE_URL: url,
            NODE_ENV: 'development',
            LOG_LEVEL: 'silent',
          },
        },
      )
      expect(stdout).toMatch(/^\d+ session\(s\) revoked: everyone signs in again$/m)
      expect([await status(t.app, user.token), await status(other, user.token)]).toEqual([401, 401])
    },
  )
})
