// GET /ready on the API: every part the process needs is checked at once, each within
// READY_TIMEOUT_MS, and the answer names the parts that fail (never their addresses); which parts
// are checked follows the process's role.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { partsFor } from '../../src/http/ready.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { freePort } from '../main/support.ts'

let healthy: TestApp
let broken: TestApp
let closedPort: number

beforeAll(async () => {
  closedPort = await freePort()
  healthy = await createTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:6379' } })
  broken = await createTestApp({
    env: {
      READY_TIMEOUT_MS: '1000',
      S3_BUCKET: 'files',
      S3_ENDPOINT: `http://127.0.0.1:${closedPort}`,
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
      SMTP_URL: `smtp://127.0.0.1:${closedPort}`,
    },
  })
})
afterAll(async () => {
  await healthy?.close()
  await broken?.close()
})

describe('GET /ready', () => {
  it('answers 200 with every check when all parts answer', async () => {
    const res = await healthy.req({ method: 'GET', url: '/ready' })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      status: 'success',
      message: 'ready',
      data: {
        database: healthy.database.kind,
        checks: { database: 'ok', chain: 'ok', storage: 'ok', redis: 'ok' },
        haltedCoins: [],
      },
    })
  })

  it('answers 503 naming the object store and the mail relay when they do not answer', async () => {
    const started = Date.now()
    const res = await broken.req({ method: 'GET', url: '/ready' })
    expect(Date.now() - started).toBeLessThan(4000)
    expect(res.statusCode).toBe(503)
    expect(res.json()).toMatchObject({
      status: 'error',
      message: 'Not ready: storage, mail unreachable',
      data: {
        code: 'UNAVAILABLE',
        failing: ['storage', 'mail'],
        checks: { database: 'ok', chain: 'ok', storage: 'failed', mail: 'failed' },
      },
    })
    expect(res.body).not.toContain(String(closedPort))
    // liveness does not depend on them
    expect((await broken.req({ method: 'GET', url: '/health' })).statusCode).toBe(200)
  })

  it('checks what each role needs: mail where jobs run, Redis where the API runs', () => {
    const config = loadConfig({
      JWT_SECRET: 'x'.repeat(40),
      RESERVES_ATTESTATION_KEY: `0x${'55'.repeat(32)}`,
      METRICS_TOKEN: 'production-metrics-token-0123',
      KEY_ENCRYPTION_KEY: 'ab'.repeat(32),
      DATA_DIR: '/tmp/wp-ops-ready',
      SMTP_URL: 'smtp://127.0.0.1:25',
      REDIS_URL: 'redis://127.0.0.1:6379',
    })
    expect(partsFor('all', config)).toEqual(['database', 'chain', 'storage', 'mail', 'redis'])
    expect(partsFor('api', config)).toEqual(['database', 'chain', 'storage', 'redis'])
    expect(partsFor('worker', config)).toEqual(['database', 'chain', 'storage', 'mail'])
    // RUN_WORKERS=false: this process runs no jobs, so it sends no mail
    expect(partsFor('all', { ...config, runWorkers: false })).toEqual([
      'database',
      'chain',
      'storage',
      'redis',
    ])
  })
})
