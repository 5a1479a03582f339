// The operations settings: CORS_ORIGINS, METRICS_TOKEN, WORKER_PORT, READY_TIMEOUT_MS and
// LOG_FORMAT (every bad value reported at once), the dev chain service's own settings, and
// LOG_FORMAT=pretty printing readable lines from the real entry point.
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig, loadDevchainConfig } from '../../src/config.ts'
import { serviceDatabase } from '../main/support.ts'
import { run, tempDirs } from './support.ts'

const base = {
  JWT_SECRET: 'x'.repeat(40),
  RESERVES_ATTESTATION_KEY: `0x${'55'.repeat(32)}`,
  KEY_ENCRYPTION_KEY: 'ab'.repeat(32),
  DATA_DIR: '/tmp/wp-ops-config',
}

function problemsOf(
  env: Record<string, string>,
  load: (env: Record<string, string>) => unknown = loadConfig,
) {
  try {
    load(env)
  } catch (err) {
    if (err instanceof ConfigError) return err.problems
    throw err
  }
  return []
}

describe('operations settings', () => {
  it('default to no CORS origin, open metrics, no worker port, JSON logs and 2 s checks', () => {
    const c = loadConfig(base)
    expect(c).toMatchObject({
      corsOrigins: [],
      metricsToken: undefined,
      workerPort: 0,
      logFormat: 'json',
      readyTimeoutMs: 2000,
      databasePoolSize: 10,
    })
  })

  it('read them from the environment', () => {
    const c = loadConfig({
      ...base,
      CORS_ORIGINS: ' https://app.example.com , http://localhost:5173,',
      METRICS_TOKEN: 'a-metrics-token-of-some-length',
      WORKER_PORT: '9100',
      LOG_FORMAT: 'pretty',
      READY_TIMEOUT_MS: '750',
      DATABASE_POOL_SIZE: ' 4 ',
    })
    expect(c).toMatchObject({
      corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
      metricsToken: 'a-metrics-token-of-some-length',
      workerPort: 9100,
      logFormat: 'pretty',
      readyTimeoutMs: 750,
      databasePoolSize: 4,
    })
    expect(loadConfig({ ...base, CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*'])
  })

  it('report every bad value at once', () => {
    const problems = problemsOf({
      ...base,
      CORS_ORIGINS: 'https://app.example.com/,ftp://files.example.com,app.example.com,https://ok.example.com',
      METRICS_TOKEN: 'short',
      WORKER_PORT: '70000',
      LOG_FORMAT: 'fancy',
      READY_TIMEOUT_MS: '5',
      DATABASE_POOL_SIZE: '0',
    })
    expect(problems.filter((p) => p.startsWith('CORS_ORIGINS'))).toHaveLength(3)
    expect(problems.join('\n')).toMatch(/"https:\/\/app\.example\.com\/" is not an origin/)
    expect(problems).toContain('METRICS_TOKEN must be at least 16 characters')
    expect(problems.some((p) => p.startsWith('WORKER_PORT'))).toBe(true)
    expect(problems).toContain('LOG_FORMAT must be json or pretty (got "fancy")')
    expect(problems.some((p) => p.startsWith('READY_TIMEOUT_MS'))).toBe(true)
    expect(problems).toContain('DATABASE_POOL_SIZE must be an integer between 1 and 500 (got "0")')
    expect(problemsOf({ ...base, DATABASE_POOL_SIZE: 'ten' })).toEqual([
      'DATABASE_POOL_SIZE must be an integer between 1 and 500 (got "ten")',
    ])
    expect(problemsOf({ ...base, CORS_ORIGINS: '*,https://app.example.com' })).toEqual([
      'CORS_ORIGINS is either * or a list of origins, not both',
    ])
  })

  it('give the dev chain service its address and files, and refuse it in production', () => {
    expect(loadDevchainConfig({})).toEqual({
      host: '127.0.0.1',
      port: 8545,
      coinsOut: undefined,
      publicUrl: undefined,
      journalFile: undefined,
    })
    expect(
      loadDevchainConfig({
        DEVCHAIN_HOST: '0.0.0.0',
        DEVCHAIN_PORT: '0',
        DEVCHAIN_COINS_OUT: '/shared/coins.json',
      }),
    ).toMatchObject({ host: '0.0.0.0', port: 0, coinsOut: '/shared/coins.json' })
    expect(problemsOf({ DEVCHAIN_PORT: 'x' }, loadDevchainConfig)).toHaveLength(1)
    expect(problemsOf({ NODE_ENV: 'production' }, loadDevchainConfig)).toEqual([
      'the dev chain never runs when NODE_ENV=production',
    ])
  })

  it('LOG_FORMAT=pretty prints readable lines instead of JSON', { timeout: 120_000 }, async () => {
    const dirs = tempDirs()
    const db = await serviceDatabase()
    try {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/main.ts', 'migrate'], {
        env: {
          ...process.env,
          NODE_ENV: 'development',
          LOG_FORMAT: 'pretty',
          DATA_DIR: dirs.make(),
          ...db.env,
        },
      })
      const lines = stdout.split('\n').filter(Boolean)
      expect(lines.some((l) => /INFO.*migrations applied/.test(l))).toBe(true)
      expect(lines.some((l) => l.startsWith('{'))).toBe(false)
    } finally {
      await db.drop()
      dirs.cleanup()
    }
  })
})
