// One-time codes and pre-signed file URLs have root secrets of their own (CODES_SECRET,
// URL_SIGNING_SECRET), apart from JWT_SECRET's sessions: each hash and URL names its key, so
// rotating JWT_SECRET (even with no overlap) breaks no pending code or URL, a URL signed before a
// rotation of URL_SIGNING_SECRET verifies while the previous root is kept and is refused by name
// (403 SIGNING_KEY_UNKNOWN) once it is removed, and a code follows CODES_SECRET's rotation the same
// way. Processes sharing one real database, each with its own configuration, as in a rolling deploy.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { type Config, type ConfigError, loadConfig } from '../../src/config.ts'
import { derivedRoot } from '../../src/config-secrets.ts'
import { type Database, openPostgres } from '../../src/db/index.ts'
import { multipart, PNG } from '../files/support.ts'
import { createTestApp, TEST_ENV, type TestApp } from '../helpers/app.ts'
import { createUser, lastCode, type TestUser } from '../helpers/factories.ts'

const NEW_JWT = 'rotated-jwt-rotated-jwt-rotated-jwt-0123'
const NEW_CODES = 'rotated-codes-rotated-codes-rotated-0123'
const NEW_URLS = 'rotated-urls-rotated-urls-rotated-urls-01'
const DAY = 86_400_000

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig({ ...TEST_ENV, DATABASE_URL: 'postgres://x@127.0.0.1/x', ...env })
    return []
  } catch (err) {
    return (err as ConfigError).problems
  }
}

describe('CODES_SECRET and URL_SIGNING_SECRET', () => {
  it('are checked like JWT_SECRET, and never the same root as another purpose', () => {
    expect(problemsOf({ CODES_SECRET: 'short' })).toEqual(['CODES_SECRET must be at least 32 characters'])
    expect(problemsOf({ URL_SIGNING_SECRET: TEST_ENV.JWT_SECRET })).toEqual([
      'URL_SIGNING_SECRET must differ from JWT_SECRET: each purpose has a secret of its own',
    ])
    expect(problemsOf({ CODES_SECRET: NEW_CODES, URL_SIGNING_SECRET: NEW_CODES })).toEqual([
      'CODES_SECRET and URL_SIGNING_SECRET must differ: each purpose has a secret of its own',
    ])
    expect(problemsOf({ CODES_SECRET: NEW_CODES, CODES_SECRET_PREVIOUS: NEW_URLS })).toEqual([
      'CODES_SECRET_PREVIOUS and CODES_SECRET_PREVIOUS_UNTIL go together: set both or neither',
    ])
    expect(
      problemsOf({
        URL_SIGNING_SECRET_PREVIOUS: NEW_URLS,
        URL_SIGNING_SECRET_PREVIOUS_UNTIL: '2030-01-01T00:00:00Z',
      }),
    ).toEqual(['URL_SIGNING_SECRET_PREVIOUS needs URL_SIGNING_SECRET: the root it was replaced by'])
    expect(
      problemsOf({
        URL_SIGNING_SECRET: NEW_URLS,
        URL_SIGNING_SECRET_PREVIOUS: NEW_CODES,
        URL_SIGNING_SECRET_PREVIOUS_UNTIL: 'tomorrow',
      })[0],
    ).toMatch(/URL_SIGNING_SECRET_PREVIOUS_UNTIL must be an ISO 8601 time/)
  })

  it('default to roots derived from the key-encryption key with a database, generated once when embedded', () => {
    const shared = loadConfig({ ...TEST_ENV, DATABASE_URL: 'postgres://x@127.0.0.1/x' })
    // the same in every process of the database, distinct per purpose, never JWT_SECRET
    expect(shared.secrets.codes.secret).toBe(derivedRoot(shared.keyEncryptionKey, 'codes'))
    expect(shared.secrets.urlSigning.secret).toBe(derivedRoot(shared.keyEncryptionKey, 'urlSigning'))
    expect(shared.secrets.codes.secret).not.toBe(shared.secrets.urlSigning.secret)
    expect(shared.secrets.codes.secret).not.toBe(shared.jwtSecret)
    const given = loadConfig({
      ...TEST_ENV,
      DATABASE_URL: 'postgres://x@127.0.0.1/x',
      CODES_SECRET: NEW_CODES,
    })
    expect(given.secrets.codes.secret).toBe(NEW_CODES)

    const dataDir = mkdtempSync(join(tmpdir(), 'wp-secrets-'))
    // a secrets file from before these secrets existed gets them added, the rest kept
    const first = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' })
    const kept = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'))
    expect(kept).toMatchObject({
      jwtSecret: first.jwtSecret,
      codesSecret: first.secrets.codes.secret,
      urlSigningSecret: first.secrets.urlSigning.secret,
    })
    const again = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' })
    expect(again.secrets).toEqual(first.secrets)
    expect(new Set([first.jwtSecret, first.secrets.codes.secret, first.secrets.urlSigning.secret]).size).toBe(
      3,
    )
  })
})

describe('processes of one database rotating their secrets', () => {
  let t: TestApp
  let user: TestUser
  const apps: FastifyInstance[] = []
  const dbs: Database[] = []
  beforeAll(async () => {
    t = await createTestApp()
    user = await createUser(t)
  })
  afterAll(async () => {
    for (const app of apps) await app.close()
    for (const db of dbs) await db.close()
    await t?.close()
  })

  /** Another process on the same database, with `change` applied to the configuration. */
  async function processWith(change: (c: Config) => Partial<Config>) {
    const url = (t.database as Database & { url?: string }).url
    const database = url ? openPostgres(url, 5) : t.database
    if (url) dbs.push(database)
    const app = await buildApp({
      config: { ...t.config, ...change(t.config) },
      database,
      clock: t.clock,
      logger: false,
    })
    await app.ready()
    apps.push(app)
    return app
  }

  const until = () => new Date(t.clock.now().getTime() + DAY)
  const verifyCode = (app: FastifyInstance, code: string) =>
    (app as unknown as { services: TestApp['app']['services'] }).services.accountSecurity.verifySensitiveCode(
      user.id,
      code,
    )

  async function mailedCode() {
    const res = await t.req({ method: 'POST', url: '/v1/account/2fa/email', token: user.token })
    expect(res.statusCode, res.body).toBe(200)
    return lastCode(t, user.email)
  }

  async function signedUrl() {
    const { payload, headers } = multipart([
      { name: 'file', filename: 'a.png', contentType: 'image/png', data: PNG },
    ])
    const up = await t.req({ method: 'POST', url: '/v1/upload/private', payload, headers, token: user.token })
    expect(up.statusCode, up.body).toBe(200)
    const signed = await t.req({
      method: 'GET',
      url: `/v1/upload/url/${up.json().data._id}`,
      token: user.token,
    })
    expect(signed.statusCode, signed.body).toBe(200)
    const u = new URL(signed.json().data)
    return `${u.pathname}${u.search}`
  }

  const fetchFrom = (app: FastifyInstance, url: string) => app.inject({ method: 'GET', url })

  it('rotating JWT_SECRET, even with no overlap, breaks no pending code and no pre-signed URL', async () => {
    const code = await mailedCode()
    const url = await signedUrl()
    const rotated = await processWith(() => ({ jwtSecret: NEW_JWT, jwtSecretPrevious: undefined }))
    // the old session is gone with its secret; the code and the URL are not
    const session = await rotated.inject({
      method: 'GET',
      url: '/v1/account',
      headers: { authorization: `Bearer ${user.token}` },
    })
    expect(session.statusCode).toBe(401)
    expect((await fetchFrom(rotated, url)).statusCode).toBe(200)
    await expect(verifyCode(rotated, code)).resolves.toBeUndefined()
  })

  it('a URL signed before a rotation of URL_SIGNING_SECRET verifies with the previous root kept, is refused once it is removed', async () => {
    const url = await signedUrl()
    const old = t.config.secrets.urlSigning.secret
    const overlap = await processWith((c) => ({
      secrets: { ...c.secrets, urlSigning: { secret: NEW_URLS, previous: { secret: old, until: until() } } },
    }))
    const done = await processWith((c) => ({
      secrets: { ...c.secrets, urlSigning: { secret: NEW_URLS, previous: undefined } },
    }))
    expect((await fetchFrom(overlap, url)).statusCode).toBe(200)
    const refused = await fetchFrom(done, url)
    expect(refused.statusCode).toBe(403)
    expect(refused.json().data.code).toBe('SIGNING_KEY_UNKNOWN')
    // a URL the rotated process signs opens with its key, and names another key id
    const signed = await (overlap as unknown as { services: TestApp['app']['services'] }).services.files.store
    const fresh = new URL(
      await signed.signedUrl(new URL(`http://x${url}`).pathname.replace('/v1/files/', ''), 300),
    )
    expect(fresh.searchParams.get('kid')).not.toBe(new URL(`http://x${url}`).searchParams.get('kid'))
    expect((await fetchFrom(done, `${fresh.pathname}${fresh.search}`)).statusCode).toBe(200)
    // the window closed, the previous root verifies nothing any more
    t.clock.advance(DAY + 1000)
    expect((await fetchFrom(overlap, url)).statusCode).toBe(403)
  })

  it('a code follows CODES_SECRET’s rotation: kept while the previous root is, refused without it', async () => {
    const old = t.config.secrets.codes.secret
    const codeA = await mailedCode()
    const overlap = await processWith((c) => ({
      secrets: { ...c.secrets, codes: { secret: NEW_CODES, previous: { secret: old, until: until() } } },
    }))
    await expect(verifyCode(overlap, codeA)).resolves.toBeUndefined()
    const codeB = await mailedCode()
    const done = await processWith((c) => ({
      secrets: { ...c.secrets, codes: { secret: NEW_CODES, previous: undefined } },
    }))
    await expect(verifyCode(done, codeB)).rejects.toMatchObject({ code: 'INVALID_CODE' })
  })
})
