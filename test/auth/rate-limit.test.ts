import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, uniqueEmail } from '../helpers/factories.ts'

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

describe('rate limits on the signed-in sensitive routes', () => {
  it('limits one account whatever its client IP, and leaves other accounts alone', async () => {
    const user = await createUser(t)
    const other = await createUser(t)
    const send = (who: { token: string }, ip: string) =>
      t.req({
        method: 'POST',
        url: '/v1/account/2fa/email',
        payload: {},
        token: who.token,
        remoteAddress: ip,
      })
    // Each request comes from another address, so only a per-account counter can stop them.
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await send(user, `10.20.30.${i + 1}`)).statusCode)
    expect(statuses).toEqual([200, 200, 200, 429])
    const limited = await send(user, '10.20.31.1')
    expect(limited.json().data.code).toBe('RATE_LIMITED')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    expect((await send(other, '10.20.30.1')).statusCode).toBe(200)
  })

  it('limits the two-factor setup, which mails a code each time', async () => {
    const user = await createUser(t)
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) {
      const res = await t.req({
        method: 'POST',
        url: '/v1/account/initiate/2fa',
        payload: { type: 'email' },
        token: user.token,
        remoteAddress: `10.20.50.${i + 1}`,
      })
      statuses.push(res.statusCode)
    }
    expect(statuses).toEqual([202, 202, 202, 429])
  })

  it('counts each route group on its own', async () => {
    const user = await createUser(t)
    for (let i = 0; i < 3; i++) {
      const res = await t.req({
        method: 'PUT',
        url: '/v1/account/password/change',
        payload: { oldPassword: 'Wrong!pass1', newPassword: 'N3w!password' },
        token: user.token,
        remoteAddress: `10.20.40.${i + 1}`,
      })
      expect(res.statusCode).toBe(401)
    }
    const change = await t.req({
      method: 'PUT',
      url: '/v1/account/password/change',
      payload: { oldPassword: user.password, newPassword: 'N3w!password' },
      token: user.token,
      remoteAddress: '10.20.40.9',
    })
    expect(change.statusCode).toBe(429)
    const code = await t.req({
      method: 'POST',
      url: '/v1/account/2fa/email',
      payload: {},
      token: user.token,
      remoteAddress: '10.20.40.10',
    })
    expect(code.statusCode).toBe(200)
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
