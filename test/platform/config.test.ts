import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.ts'

const secrets = { JWT_SECRET: 'x'.repeat(40), KEY_ENCRYPTION_KEY: 'ab'.repeat(32) }

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
