// A stolen access token must not be an unlimited oracle for the account password: every action a
// signed-in account confirms with its password counts wrong passwords per account, whatever the
// client IP, and they share one counter.
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initiate } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

const WRONG = 'Wrong!pass1'
let ipCounter = 0
/** Every guess from another client IP: the per-IP limits must not be what stops them. */
const nextIp = () => `10.77.${Math.floor(ipCounter / 250)}.${(ipCounter++ % 250) + 1}`

function call(user: TestUser, method: 'POST' | 'PUT', url: string, payload: object) {
  return t.req({ method, url, payload, token: user.token, remoteAddress: nextIp() })
}

const freshAddress = () =>
  privateKeyToAccount(`0x${'7'.repeat(63)}${Math.floor(Math.random() * 9) + 1}`).address

function expectCode(res: { statusCode: number; body: string; json(): any }, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.json()).toMatchObject({ status: 'error', data: { code } })
}

describe('wrong passwords of a signed-in account', () => {
  it('are counted across every password-confirmed action; the sixth attempt is 429 even when right', async () => {
    const payer = await createUser(t)
    const receiver = await createUser(t)
    const escrow = await initiate(t, payer, receiver)
    const guesses: Array<() => Promise<{ statusCode: number; body: string; json(): any }>> = [
      () => call(payer, 'POST', '/v1/escrow/pay', { escrowId: escrow.escrowId, password: WRONG }),
      () =>
        call(payer, 'PUT', '/v1/account/password/change', {
          oldPassword: WRONG,
          newPassword: 'N3w!password',
        }),
      () => call(payer, 'POST', '/v1/account/delete-account', { password: WRONG }),
      () => call(payer, 'POST', '/v1/wallet/export-secret-key', { code: '123456', password: WRONG }),
      () => call(payer, 'POST', '/v1/account/2fa/email', { password: WRONG }),
    ]
    for (const guess of guesses) expectCode(await guess(), 401, 'INVALID_CREDENTIALS')

    // The right password is refused now, on every route, and nothing happens.
    const locked = [
      await call(payer, 'POST', '/v1/escrow/pay', { escrowId: escrow.escrowId, password: payer.password }),
      await call(payer, 'PUT', '/v1/account/password/change', {
        oldPassword: payer.password,
        newPassword: 'N3w!password',
      }),
      await call(payer, 'POST', '/v1/account/delete-account', { password: payer.password }),
      await call(payer, 'POST', '/v1/wallet/export-secret-key', { code: '123456', password: payer.password }),
      await call(payer, 'POST', '/v1/withdrawals/', {
        amount: 0.01,
        coin: 'avax',
        address: freshAddress(),
        password: payer.password,
      }),
    ]
    for (const res of locked) {
      expectCode(res, 429, 'RATE_LIMITED')
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
    }
    const me = await t.req({ method: 'GET', url: '/v1/account', token: payer.token })
    expect(me.statusCode).toBe(200)

    // Another account is not affected.
    const other = await createUser(t)
    expectCode(
      await call(other, 'POST', '/v1/account/delete-account', { password: WRONG }),
      401,
      'INVALID_CREDENTIALS',
    )

    // After the window the right password works again, and refused attempts did not extend it.
    t.clock.advance(15 * 60 * 1000 + 1000)
    const changed = await call(payer, 'PUT', '/v1/account/password/change', {
      oldPassword: payer.password,
      newPassword: 'N3w!password',
    })
    expect(changed.statusCode, changed.body).toBe(200)
  })

  it('keeps an endless stream of guesses at escrow payment to five', async () => {
    const payer = await createUser(t)
    const receiver = await createUser(t)
    const escrow = await initiate(t, payer, receiver)
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) {
      const res = await call(payer, 'POST', '/v1/escrow/pay', {
        escrowId: escrow.escrowId,
        password: `Wrong!pass${i}`,
      })
      statuses.push(res.statusCode)
    }
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(7).fill(429)])
  })

  it('lets concurrent guesses through no more than five times', async () => {
    const user = await createUser(t)
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(user, 'POST', '/v1/account/delete-account', { password: `Wrong!pass${i}` }),
      ),
    )
    const wrong = results.filter((r) => r.statusCode === 401).length
    expect(wrong).toBeLessThanOrEqual(5)
    expect(results.every((r) => r.statusCode === 401 || r.statusCode === 429)).toBe(true)
  })

  it('does not count right passwords', async () => {
    const user = await createUser(t)
    for (let i = 0; i < 8; i++) {
      const res = await call(user, 'POST', '/v1/account/2fa/email', { password: user.password })
      expect(res.statusCode, res.body).toBe(200)
    }
    for (let i = 0; i < 5; i++)
      expectCode(
        await call(user, 'POST', '/v1/account/2fa/email', { password: WRONG }),
        401,
        'INVALID_CREDENTIALS',
      )
    expectCode(
      await call(user, 'POST', '/v1/account/2fa/email', { password: user.password }),
      429,
      'RATE_LIMITED',
    )
  })
})
