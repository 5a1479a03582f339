import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { openChain } from '../../src/platform/chain/index.ts'
import { systemClock } from '../../src/platform/clock.ts'
import { createBlobStore } from '../../src/platform/storage/index.ts'
import { openTestDatabase } from '../helpers/app.ts'

const secrets = {
  JWT_SECRET: 'x'.repeat(40),
  KEY_ENCRYPTION_KEY: 'ab'.repeat(32),
  RESERVES_ATTESTATION_KEY: `0x${'55'.repeat(32)}`,
  METRICS_TOKEN: 'production-metrics-token-0123',
}
/** everything production asks for */
const production = {
  ...secrets,
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://app@db.internal:5432/workpay',
  PUBLIC_URL: 'https://api.example.com',
  WEBAUTHN_ORIGIN: 'https://console.example.com',
  WEBAUTHN_RP_ID: 'example.com',
  SMTP_URL: 'smtp://relay.internal:587',
  EVM_RPC_URL: 'https://rpc.example.com',
  COINS_FILE: '/etc/workpay/coins.json',
  TREASURY_PRIVATE_KEY: `0x${'12'.repeat(32)}`,
  GAS_WALLET_PRIVATE_KEY: `0x${'34'.repeat(32)}`,
  S3_BUCKET: 'files',
}

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
/** an empty data directory of this test */
function tmp() {
  const d = mkdtempSync(join(tmpdir(), 'wp-config-'))
  dirs.push(d)
  return d
}

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (err) {
    if (err instanceof ConfigError) return err.problems
    throw err
  }
  return []
}

describe('configuration', () => {
  it('has embedded defaults for everything', () => {
    const c = loadConfig({ ...secrets, DATA_DIR: '/tmp/wp-config-test' })
    expect(c.port).toBe(3000)
    expect(c.host).toBe('127.0.0.1')
    expect(c.publicUrl).toBe('http://127.0.0.1:3000')
    expect(c.databaseUrl).toBeUndefined()
    expect(c.uploadMaxBytes).toBe(10 * 1024 * 1024)
    expect(c.platformFeePercent).toBe(5)
    expect(c.confirmations).toBe(1)
    expect(c.s3).toBeUndefined()
    expect(Object.isFrozen(c)).toBe(true)
  })

  it('reports every bad variable at once', () => {
    try {
      loadConfig({
        ...secrets,
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        UPLOAD_MAX_BYTES: '-1',
        TRUST_PROXY: 'maybe',
      })
      expect.unreachable()
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError)
      const problems = (err as ConfigError).problems.join('\n')
      for (const v of ['PORT', 'DATABASE_URL', 'UPLOAD_MAX_BYTES', 'TRUST_PROXY'])
        expect(problems).toContain(v)
    }
  })

  it('refuses to start in production without secrets', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET.*\n.*KEY_ENCRYPTION_KEY/s)
  })

  it('in production, names every missing part at once', () => {
    const problems = problemsOf({ ...secrets, NODE_ENV: 'production', DATA_DIR: tmp() })
    for (const name of [
      'DATABASE_URL',
      'PUBLIC_URL',
      'SMTP_URL',
      'EVM_RPC_URL',
      'COINS_FILE',
      'TREASURY_PRIVATE_KEY',
      'GAS_WALLET_PRIVATE_KEY',
      'WEBAUTHN_ORIGIN',
      'WEBAUTHN_RP_ID',
    ])
      expect(problems).toContainEqual(`${name} is required when NODE_ENV=production`)
    expect(problems.some((p) => p.includes('S3_BUCKET') && p.includes('FILES_DIR'))).toBe(true)
    expect(problems).toHaveLength(10)
    // nothing is generated for a configuration that is refused
    expect(problems.join()).not.toContain('JWT_SECRET')
  })

  it('in production, also names missing secrets and refuses the dev chain port', () => {
    const problems = problemsOf({
      ...production,
      JWT_SECRET: '',
      KEY_ENCRYPTION_KEY: ' ',
      DEVCHAIN_PORT: '8545',
    })
    expect(problems).toEqual([
      'JWT_SECRET is required when NODE_ENV=production',
      'KEY_ENCRYPTION_KEY is required when NODE_ENV=production',
      'DEVCHAIN_PORT is refused when NODE_ENV=production: the dev chain never runs there',
    ])
  })

  it('accepts a complete production configuration, with S3 or with a files directory', () => {
    const dataDir = tmp()
    const c = loadConfig({ ...production, DATA_DIR: dataDir })
    expect(c).toMatchObject({
      production: true,
      databaseUrl: production.DATABASE_URL,
      publicUrl: 'https://api.example.com',
      smtpUrl: production.SMTP_URL,
      evmRpcUrl: production.EVM_RPC_URL,
      jwtSecret: secrets.JWT_SECRET,
      filesDir: undefined,
    })
    expect(c.s3?.bucket).toBe('files')
    expect(c.keyEncryptionKey.toString('hex')).toBe(secrets.KEY_ENCRYPTION_KEY)
    const withDir = loadConfig({ ...production, S3_BUCKET: '', FILES_DIR: 'relative/files' })
    expect(withDir.s3).toBeUndefined()
    expect(withDir.filesDir).toBe(resolve('relative/files'))
    expect(existsSync(join(dataDir, 'secrets.json'))).toBe(false)
  })

  it('with DATABASE_URL, takes the secrets from the environment only (any NODE_ENV)', () => {
    const dataDir = tmp()
    const env = { DATABASE_URL: 'postgres://u@127.0.0.1:5432/db', DATA_DIR: dataDir }
    expect(problemsOf(env)).toEqual([
      'JWT_SECRET is required when DATABASE_URL is set',
      'KEY_ENCRYPTION_KEY is required when DATABASE_URL is set',
    ])
    expect(problemsOf({ ...env, JWT_SECRET: secrets.JWT_SECRET })).toEqual([
      'KEY_ENCRYPTION_KEY is required when DATABASE_URL is set',
    ])
    // a malformed URL still counts as a database given
    expect(problemsOf({ ...env, DATABASE_URL: 'mysql://x' })).toHaveLength(3)
    expect(existsSync(join(dataDir, 'secrets.json'))).toBe(false)
    const c = loadConfig({ ...env, ...secrets })
    expect(c.jwtSecret).toBe(secrets.JWT_SECRET)
    expect(existsSync(join(dataDir, 'secrets.json'))).toBe(false)
  })

  it('on the embedded database, generates the missing secrets once into DATA_DIR', () => {
    const dataDir = tmp()
    const a = loadConfig({ DATA_DIR: dataDir })
    expect(a.jwtSecret).toMatch(/^[0-9a-f]{64}$/)
    expect(existsSync(join(dataDir, 'secrets.json'))).toBe(true)
    const b = loadConfig({ DATA_DIR: dataDir })
    expect(b.jwtSecret).toBe(a.jwtSecret)
    expect(b.keyEncryptionKey.equals(a.keyEncryptionKey)).toBe(true)
    // a given secret wins over the generated one
    expect(loadConfig({ DATA_DIR: dataDir, JWT_SECRET: secrets.JWT_SECRET }).jwtSecret).toBe(
      secrets.JWT_SECRET,
    )
  })

  it('FILES_DIR is resolved; a bad shutdown timeout is reported', () => {
    expect(loadConfig({ ...secrets, FILES_DIR: '/srv/files/' }).filesDir).toBe('/srv/files')
    expect(loadConfig({ ...secrets }).filesDir).toBeUndefined()
    expect(loadConfig({ ...secrets }).shutdownTimeoutMs).toBe(25_000)
    expect(problemsOf({ ...secrets, SHUTDOWN_TIMEOUT_MS: '10' })[0]).toContain('SHUTDOWN_TIMEOUT_MS')
  })

  it('parses S3 settings and path style', () => {
    const c = loadConfig({ ...secrets, S3_BUCKET: 'b', S3_ENDPOINT: 'http://127.0.0.1:9000' })
    expect(c.s3).toMatchObject({
      bucket: 'b',
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      region: 'us-east-1',
    })
  })
})

describe('production never runs the embedded parts, even from a configuration built by hand', () => {
  // An embedded configuration forced to production (what a partial or hand-made config could be).
  const forced = () => loadConfig({ ...secrets, DATA_DIR: tmp() }, { production: true })

  it('refuses the dev chain', async () => {
    await expect(openChain(forced())).rejects.toThrow(
      /embedded dev chain .*never runs when NODE_ENV=production/,
    )
  })

  it('refuses the mail outbox', async () => {
    const database = await openTestDatabase()
    try {
      await expect(buildApp({ config: forced(), database, logger: false })).rejects.toThrow(
        /mail outbox .*never runs when NODE_ENV=production/,
      )
    } finally {
      await database.close()
    }
  })

  it('refuses files under DATA_DIR, and keeps files in FILES_DIR when it is set', async () => {
    await expect(createBlobStore(forced(), systemClock)).rejects.toThrow(
      /never runs when NODE_ENV=production/,
    )
    const filesDir = join(tmp(), 'objects')
    const config = loadConfig({ ...secrets, DATA_DIR: tmp(), FILES_DIR: filesDir }, { production: true })
    const store = await createBlobStore(config, systemClock)
    await store.put('public/a.txt', Readable.from([Buffer.from('hello')]), { contentType: 'text/plain' })
    expect(existsSync(join(filesDir, 'public', 'a.txt'))).toBe(true)
    expect(existsSync(join(config.dataDir, 'files'))).toBe(false)
  })
})
