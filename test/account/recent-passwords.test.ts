// A password confirmed right spares the account's next confirmations argon2id for a few minutes,
// and only that password, under that stored hash: a wrong attempt, a password change or the time
// running out ends it, and the wrong-password limit holds all the same. Both drivers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RecentPasswords } from '../../src/modules/account/recent-passwords.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { freshAddress, fundUser } from '../withdrawals/helpers.ts'

describe('RecentPasswords', () => {
  it('matches the password last confirmed, under the same hash, until its time runs out', () => {
    let now = 1_000
    const recent = new RecentPasswords(60_000, 2, () => now)
    expect(recent.matches('u1', '$hash1', 'right')).toBe(false)
    recent.remember('u1', '$hash1', 'right')
    expect(recent.matches('u1', '$hash1', 'right')).toBe(true)
    expect(recent.matches('u1', '$hash1', 'wrong')).toBe(false)
    expect(recent.matches('u1', '$hash2', 'right')).toBe(false)
    expect(recent.matches('u2', '$hash1', 'right')).toBe(false)
    expect(recent.matches('u1', null, 'right')).toBe(false)
    now += 60_001
    expect(recent.matches('u1', '$hash1', 'right')).toBe(false)
    recent.remember('u1', '$hash1', 'right')
    recent.forget('u1')
    expect(recent.matches('u1', '$hash1', 'right')).toBe(false)
  })

  it('keeps at most `max` accounts, the oldest going first, and nothing without a hash', () => {
    const recent = new RecentPasswords(60_000, 2)
    recent.remember('a', '$h', 'p')
    recent.remember('b', '$h', 'p')
    recent.remember('c', '$h', 'p')
    recent.remember('d', null, 'p')
    expect(recent.size).toBe(2)
    expect(recent.matches('a', '$h', 'p')).toBe(false)
    expect(recent.matches('c', '$h', 'p')).toBe(true)
  })
})

describe('password-confirmed actions', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t?.close())

  const withdraw = (token: string, password: string) =>
    t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token,
      payload: { amount: 0.01, coin: 'avax', address: freshAddress(), password },
    })

  it('refuse a wrong password right after the right one, and the old one after a change', async () => {
    const user = await createUser(t)
    await fundUser(t, 6, user, 'avax', 10n ** 18n)
    expect((await withdraw(user.token, user.password)).statusCode).toBe(200)
    expect((await withdraw(user.token, user.password)).statusCode).toBe(200)
    const wrong = await withdraw(user.token, `${user.password}x`)
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json().data.code).toBe('INVALID_CREDENTIALS')
    expect((await withdraw(user.token, user.password)).statusCode).toBe(200)

    const newPassword = 'N3w!password-long'
    const changed = await t.req({
      method: 'PUT',
      url: '/v1/account/password/change',
      token: user.token,
      payload: { oldPassword: user.password, newPassword },
    })
    expect(changed.statusCode, changed.body).toBe(200)
    const old = await withdraw(user.token, user.password)
    expect(old.statusCode).toBe(401)
    expect((await withdraw(user.token, newPassword)).statusCode).toBe(200)
  })

  it('answer 429 to the right password once the account has too many wrong ones', async () => {
    const user = await createUser(t)
    await fundUser(t, 7, user, 'avax', 10n ** 18n)
    expect((await withdraw(user.token, user.password)).statusCode).toBe(200)
    for (let i = 0; i < 5; i++) expect((await withdraw(user.token, `wrong-${i}`)).statusCode).toBe(401)
    const locked = await withdraw(user.token, user.password)
    expect(locked.statusCode).toBe(429)
  })
})
