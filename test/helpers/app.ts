// Builds the real application on a fresh database for one test file: PGlite from the migrated
// template (default) or a new PostgreSQL database (TEST_DB=postgres), dropped afterwards.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { inject } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { type Config, loadConfig } from '../../src/config.ts'
import { type Database, openPGlite, openPostgres } from '../../src/db/index.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import type { CrashHook } from '../../src/modules/settlement/outgoing/types.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import type { Mailer } from '../../src/platform/mail/mailer.ts'
import { scratchPostgres } from './postgres.ts'

export const TEST_ENV = {
  JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
  KEY_ENCRYPTION_KEY: '11'.repeat(32),
  RATE_LIMIT_AUTH_PER_IP: '100000',
  RATE_LIMIT_AUTH_PER_EMAIL: '100000',
  // the limits on repeated writes, far out of reach (test/http/write-limits.test.ts sets its own)
  RATE_LIMIT_WRITES_SCALE: '10000',
  LOG_LEVEL: 'silent',
}

/** A database of this test file's own; `url` names it on PostgreSQL (for a second connection). */
export async function openTestDatabase(): Promise<Database & { url?: string }> {
  if (inject('testDb') === 'postgres') {
    const scratch = await scratchPostgres('wp_test')
    const database = openPostgres(scratch.url, 20)
    await migrateToLatest(database.db)
    const close = database.close
    return {
      ...database,
      url: scratch.url,
      close: async () => {
        await close()
        await scratch.drop()
      },
    }
  }
  const template = readFileSync(inject('pgliteTemplate'))
  return openPGlite({ loadDataDir: new Blob([template]) })
}

export interface TestApp {
  app: FastifyInstance
  database: Database
  clock: ManualClock
  config: Config
  close(): Promise<void>
  /** runs every queued background job (mail, chain, payouts) */
  drain(): Promise<void>
  req(opts: InjectOptions & { token?: string }): Promise<LightMyRequestResponse>
  /** the outgoing sender's crash points: set `hook` to throw SimulatedCrash at one of them */
  crash: { hook: CrashHook | undefined }
}

export async function createTestApp(
  opts: { env?: Record<string, string>; config?: Partial<Config>; mailer?: Mailer } = {},
): Promise<TestApp> {
  const database = await openTestDatabase()
  // Files, the devnet journal and anything else on disk go to a directory of this app alone.
  const ownDataDir = opts.env?.DATA_DIR ? undefined : mkdtempSync(join(tmpdir(), 'wp-test-data-'))
  const config = loadConfig(
    { ...TEST_ENV, ...(ownDataDir ? { DATA_DIR: ownDataDir } : {}), ...opts.env },
    opts.config,
  )
  const clock = new ManualClock()
  const crash: TestApp['crash'] = { hook: undefined }
  const app = await buildApp({
    config,
    database,
    clock,
    logger: false,
    ...(opts.mailer ? { mailer: opts.mailer } : {}),
    crashHook: (at, id) => crash.hook?.(at, id),
  })
  await app.ready()
  return {
    app,
    database,
    clock,
    config,
    async close() {
      await app.close()
      await database.close()
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true })
    },
    drain: () => app.services.jobs.runUntilIdle(),
    crash,
    req({ token, headers, ...rest }) {
      return app.inject({
        ...rest,
        headers: { ...(headers ?? {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      })
    },
  }
}
