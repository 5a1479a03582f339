import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { uniqueEmail } from '../helpers/factories.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_AUTH_PER_IP: '6', RATE_LIMIT_AUTH_PER_EMAIL: '3' } })
})
afterAll(() => t.close())

describe('rate limits on the auth routes', () => {
  it('limits one email address, with Retry-After', async () => {
    const email = uniqueEmail('rl')
    const codes: number[] = []
    for (let i = 0; i < 4; i++) {
      const res = await t.req({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email, password: 'Wrong-pass1' },
      })
      codes.push(res.statusCode)
      if (res.statusCode === 429) {
        expect(res.json().data.code).toBe('RATE_LIMITED')
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
      }
    }
    expect(codes).toEqual([401, 401, 401, 429])
    // the same client is not blocked for another email
    const other = await t.req({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: uniqueEmail('rl'), password: 'Wrong-pass1' },
    })
    expect(other.statusCode).toBe(401)
  })

  it('limits one client IP across emails', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 7; i++) {
      const res = await t.req({
        method: 'POST',
        url: '/v1/auth/password/reset',
        payload: { email: uniqueEmail('ip') },
        remoteAddress: '10.9.8.7',
      })
      statuses.push(res.statusCode)
    }
    expect(statuses.slice(0, 6).every((s) => s === 200)).toBe(true)
    expect(statuses[6]).toBe(429)
    // another client is unaffected
    const fresh = await t.req({
      method: 'POST',
      url: '/v1/auth/password/reset',
      payload: { email: uniqueEmail('ip') },
      remoteAddress: '10.9.8.8',
    })
    expect(fresh.statusCode).toBe(200)
  })
})

describe('rate limits shared through Redis', () => {
  it('counts one email across two API processes', async () => {
    const env = {
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      RATE_LIMIT_AUTH_PER_EMAIL: '2',
    }
    const a = await createTestApp({ env })
    const b = await createTestApp({ env })
    try {
      const email = uniqueEmail('redis')
      const payload = { email, password: 'Wrong-pass1' }
      expect((await a.req({ method: 'POST', url: '/v1/auth/login', payload })).statusCode).toBe(401)
      expect((await b.req({ method: 'POST', url: '/v1/auth/login', payload })).statusCode).toBe(401)
      const third = await a.req({ method: 'POST', url: '/v1/auth/login', payload })
      expect(third.statusCode).toBe(429)
      expect(third.json().data.code).toBe('RATE_LIMITED')
    } finally {
      await a.close()
      await b.close()
    }
  })
})
