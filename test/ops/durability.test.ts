// The PostgreSQL settings that can lose an answered change: refused in production at start,
// warned about elsewhere. Read from the service's own session on a real server, so a setting made
// for its database counts; the process exits with status 2 naming it, before it migrates anything.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { judgeSettings, serverDurability } from '../../src/db/durability.ts'
import { openPostgres } from '../../src/db/index.ts'
import { devPrivateKeys } from '../../src/platform/chain/devnet.ts'
import { type ScratchPostgres, scratchPostgres } from '../helpers/postgres.ts'
import { run, tempDirs } from './support.ts'

const dirs = tempDirs()
const scratch: ScratchPostgres[] = []
afterAll(async () => {
  for (const s of scratch) await s.drop()
  dirs.cleanup()
})

/** A new database on the suite's server, with `settings` made for it (`alter database … set`). */
async function databaseWith(settings: Record<string, string>): Promise<ScratchPostgres> {
  const s = await scratchPostgres('wp_durable')
  scratch.push(s)
  const name = new URL(s.url).pathname.slice(1)
  for (const [key, value] of Object.entries(settings))
    await s.query(`alter database ${name} set ${key} = '${value}'`)
  return s
}

const tables = async (s: ScratchPostgres) =>
  (await s.query<{ n: number }>(`select count(*)::int as n from pg_tables where schemaname = 'public'`))[0]!.n

/** `src/main.ts migrate` on `url`; its exit status and everything it printed. */
async function migrate(url: string, env: Record<string, string>): Promise<{ code: number; out: string }> {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', 'src/main.ts', 'migrate'], {
      env: {
        PATH: process.env.PATH!,
        DATABASE_URL: url,
        JWT_SECRET: 'durability-test-secret-0123456789-abcdefgh',
        RESERVES_ATTESTATION_KEY: `0x${'55'.repeat(32)}`,
        METRICS_TOKEN: 'production-metrics-token-0123',
        KEY_ENCRYPTION_KEY: '44'.repeat(32),
        LOG_LEVEL: 'info',
        ...env,
      },
    })
    return { code: 0, out: r.stdout + r.stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, out: e.stdout + e.stderr }
  }
}

describe('the verdict on the settings', () => {
  it("accepts PostgreSQL's defaults and every synchronous_commit level that waits for the local flush", () => {
    expect(judgeSettings({})).toEqual({ refused: [], warnings: [] })
    for (const level of ['on', 'local', 'remote_write', 'remote_apply'])
      expect(
        judgeSettings({ fsync: 'on', synchronous_commit: level, full_page_writes: 'on', autovacuum: 'on' }),
      ).toEqual({ refused: [], warnings: [] })
  })

  it('refuses fsync off and synchronous_commit off, and warns of full_page_writes and autovacuum off', () => {
    const v = judgeSettings({
      fsync: 'off',
      synchronous_commit: 'off',
      full_page_writes: 'off',
      autovacuum: 'off',
    })
    expect(v.refused).toHaveLength(2)
    expect(v.refused[0]).toContain('fsync = off')
    expect(v.refused[1]).toContain('synchronous_commit = off')
    expect(v.warnings).toHaveLength(2)
    expect(v.warnings[0]).toContain('full_page_writes = off')
    expect(v.warnings[1]).toContain('autovacuum = off')
    expect(judgeSettings({ synchronous_commit: 'off' }).refused).toHaveLength(1)
    expect(judgeSettings({ autovacuum: 'off' })).toEqual({ refused: [], warnings: [expect.any(String)] })
  })
})

describe('the settings of the service’s session on a real server', () => {
  it('count a setting made for its database', async () => {
    const plain = await databaseWith({})
    const lax = await databaseWith({ synchronous_commit: 'off' })
    for (const [s, refusedSync] of [
      [plain, false],
      [lax, true],
    ] as const) {
      const database = openPostgres(s.url, 2)
      try {
        const { refused } = await serverDurability(database.db)
        expect(refused.some((r) => r.includes('synchronous_commit'))).toBe(refusedSync)
      } finally {
        await database.close()
      }
    }
  })
})

describe('start-up on such a server', { timeout: 120_000 }, () => {
  const keys = devPrivateKeys()
  const production = () => {
    const dir = dirs.make()
    return {
      NODE_ENV: 'production',
      PUBLIC_URL: 'https://api.example.com',
      WEBAUTHN_ORIGIN: 'https://api.example.com',
      WEBAUTHN_RP_ID: 'api.example.com',
      SMTP_URL: 'smtp://127.0.0.1:2525',
      EVM_RPC_URL: 'http://127.0.0.1:8545',
      COINS_FILE: join(dir, 'coins.json'),
      TREASURY_PRIVATE_KEY: keys[18]!,
      GAS_WALLET_PRIVATE_KEY: keys[17]!,
      FILES_DIR: join(dir, 'files'),
    }
  }

  it('in production, exits with status 2 naming synchronous_commit, before migrating anything', async () => {
    const lax = await databaseWith({ synchronous_commit: 'off' })
    const { code, out } = await migrate(lax.url, production())
    expect(code).toBe(2)
    expect(out).toContain('synchronous_commit = off')
    expect(await tables(lax)).toBe(0)
  })

  it('in production on a server that keeps its commits, migrates', async () => {
    const plain = await databaseWith({})
    // a scratch server run with fsync off (for speed) is refused as well
    const durable = (await plain.query<{ fsync: string }>('show fsync'))[0]!.fsync === 'on'
    const { code, out } = await migrate(plain.url, production())
    expect(code, out).toBe(durable ? 0 : 2)
    if (durable) expect(await tables(plain)).toBeGreaterThan(0)
    else expect(await tables(plain)).toBe(0)
  })

  it('outside production, warns and goes on', async () => {
    const lax = await databaseWith({ synchronous_commit: 'off' })
    const { code, out } = await migrate(lax.url, { NODE_ENV: 'development' })
    expect(code, out).toBe(0)
    expect(out).toMatch(/"level":40,.*synchronous_commit = off/)
    expect(await tables(lax)).toBeGreaterThan(0)
  })
})
