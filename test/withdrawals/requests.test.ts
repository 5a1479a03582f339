// The withdrawal request and list: every bad input gets its 4xx and changes nothing, the password
// and two-factor code guard it, Idempotency-Key replays, and nobody sees another user's withdrawals.
import { getAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, lastCode, type TestUser } from '../helpers/factories.ts'
import {
  AVAX,
  balanceOf,
  expectConsistent,
  freshAddress,
  fundUser,
  settleAll,
  snapshot,
  USDC,
  walletAddress,
} from './helpers.ts'

let t: TestApp
let user: TestUser
let own: string

beforeAll(async () => {
  t = await createTestApp()
  user = await createUser(t)
  await fundUser(t, 0, user, 'avax', 1n * AVAX)
  await fundUser(t, 1, user, 'usdc', 10n * USDC)
  own = await walletAddress(t, user)
})
afterAll(() => t?.close())

function post(who: TestUser | null, payload: unknown, headers: Record<string, string> = {}) {
  return t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    ...(who ? { token: who.token } : {}),
    payload: payload as object,
    headers,
  })
}

const good = () => ({ amount: 0.01, coin: 'avax', address: freshAddress(), password: user.password })

describe('POST /v1/withdrawals/ refuses bad input and writes nothing', () => {
  const mixed = getAddress(freshAddress())
  const badChecksum =
    mixed.slice(0, 2) +
    [...mixed.slice(2)]
      .map((c) => (/[a-f]/.test(c) ? c.toUpperCase() : /[A-F]/.test(c) ? c.toLowerCase() : c))
      .join('')
  const cases: [string, () => Record<string, unknown>, number, string, string?][] = [
    ['a negative amount', () => ({ ...good(), amount: -1 }), 400, 'VALIDATION_ERROR'],
    ['a zero amount', () => ({ ...good(), amount: 0 }), 400, 'VALIDATION_ERROR'],
    [
      'more decimals than the coin has',
      () => ({ ...good(), coin: 'usdc', amount: 1.0000001 }),
      400,
      'VALIDATION_ERROR',
      '/amount',
    ],
    [
      'a tiny amount in exponent form',
      () => ({ ...good(), coin: 'usdc', amount: 1e-7 }),
      400,
      'VALIDATION_ERROR',
      '/amount',
    ],
    ['an amount as a string', () => ({ ...good(), amount: '0.5' }), 400, 'VALIDATION_ERROR'],
    ['a null amount', () => ({ ...good(), amount: null }), 400, 'VALIDATION_ERROR'],
    [
      'a missing amount',
      () => ({ coin: 'avax', address: freshAddress(), password: user.password }),
      400,
      'VALIDATION_ERROR',
    ],
    ['a huge amount', () => ({ ...good(), amount: 1e300 }), 400, 'VALIDATION_ERROR', '/amount'],
    ['an amount below the minimum (the fee)', () => ({ ...good(), amount: 0.0005 }), 422, 'BUSINESS_RULE'],
    ['more than the balance', () => ({ ...good(), amount: 5 }), 422, 'INSUFFICIENT_BALANCE'],
    [
      'more than the balance counting the fee',
      () => ({ ...good(), coin: 'usdc', amount: 9.95 }),
      422,
      'INSUFFICIENT_BALANCE',
    ],
    ['an unknown coin', () => ({ ...good(), coin: 'doge' }), 400, 'VALIDATION_ERROR'],
    ['a coin that is not a string', () => ({ ...good(), coin: 5 }), 400, 'VALIDATION_ERROR'],
    [
      'an address that is not hex',
      () => ({ ...good(), address: 'not-an-address' }),
      400,
      'VALIDATION_ERROR',
      '/address',
    ],
    ['a short address', () => ({ ...good(), address: '0x1234' }), 400, 'VALIDATION_ERROR', '/address'],
    ['a wrong checksum', () => ({ ...good(), address: badChecksum }), 400, 'VALIDATION_ERROR', '/address'],
    [
      'the zero address',
      () => ({ ...good(), address: `0x${'0'.repeat(40)}` }),
      400,
      'VALIDATION_ERROR',
      '/address',
    ],
    ["the user's own address", () => ({ ...good(), address: own }), 400, 'VALIDATION_ERROR', '/address'],
    [
      "the user's own address in lower case",
      () => ({ ...good(), address: own.toLowerCase() }),
      400,
      'VALIDATION_ERROR',
      '/address',
    ],
    ['a wrong password', () => ({ ...good(), password: 'Wrong!pass1' }), 401, 'INVALID_CREDENTIALS'],
    [
      'a missing password',
      () => ({ amount: 0.01, coin: 'avax', address: freshAddress() }),
      400,
      'VALIDATION_ERROR',
    ],
    ['an unknown field', () => ({ ...good(), memo: 'hi' }), 400, 'VALIDATION_ERROR'],
  ]
  it.each(cases)('%s', async (_name, body, status, code, path) => {
    const before = await snapshot(t)
    const res = await post(user, body())
    expect(res.statusCode, res.body).toBe(status)
    expect(res.json()).toMatchObject({ status: 'error', data: { code } })
    if (path) expect(res.json().data.errors?.[0]?.path).toBe(path)
    expect(await snapshot(t)).toEqual(before)
  })

  it('names the reason beside the contract’s BUSINESS_RULE for an amount below the minimum', async () => {
    const res = await post(user, { ...good(), amount: 0.0005 })
    expect(res.json().data).toMatchObject({ code: 'BUSINESS_RULE', minimum: 0.001 })
    expect(res.json().data.reason).toBe('WITHDRAWAL_BELOW_MINIMUM')
  })

  it('refuses malformed JSON (NaN is not JSON)', async () => {
    const before = await snapshot(t)
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: user.token,
      headers: { 'content-type': 'application/json' },
      payload: `{"amount": NaN, "coin": "avax", "address": "${freshAddress()}", "password": "x"}`,
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().data.code).toBe('VALIDATION_ERROR')
    expect(await snapshot(t)).toEqual(before)
  })

  it('accepts a correct EIP-55 checksum and an all-lower-case address', async () => {
    for (const address of [mixed, freshAddress().toLowerCase()]) {
      const res = await post(user, { ...good(), address })
      expect(res.statusCode, res.body).toBe(200)
    }
    await settleAll(t)
    await expectConsistent(t)
  })

  it('needs a token', async () => {
    const before = await snapshot(t)
    const res = await post(null, good())
    expect(res.statusCode).toBe(401)
    expect(res.json().data.code).toBe('UNAUTHENTICATED')
    expect(await snapshot(t)).toEqual(before)
  })
})

describe('password attempts and two-factor', () => {
  it('answers 429 after five wrong passwords, even to the right one', async () => {
    const u = await createUser(t)
    await fundUser(t, 2, u, 'avax', AVAX / 10n)
    for (let i = 0; i < 5; i++) {
      const res = await post(u, { ...good(), password: `Wrong!pass${i}` })
      expect(res.statusCode).toBe(401)
    }
    const res = await post(u, { ...good(), password: u.password })
    expect(res.statusCode).toBe(429)
    expect(res.json().data.code).toBe('RATE_LIMITED')
    expect(await balanceOf(t, u.id, 'avax')).toBe(AVAX / 10n)
  })

  it('requires the two-factor code when two-factor is on', async () => {
    const u = await createUser(t)
    await fundUser(t, 3, u, 'avax', AVAX / 10n)
    const init = await t.req({
      method: 'POST',
      url: '/v1/account/initiate/2fa',
      token: u.token,
      payload: { type: 'email' },
    })
    expect(init.statusCode, init.body).toBe(202)
    const act = await t.req({
      method: 'POST',
      url: '/v1/account/activate/2fa',
      token: u.token,
      payload: { code: await lastCode(t, u.email) },
    })
    expect(act.statusCode, act.body).toBe(200)
    const body = { amount: 0.02, coin: 'avax', address: freshAddress(), password: u.password }

    const before = await snapshot(t)
    const missing = await post(u, body)
    expect(missing.statusCode).toBe(400)
    expect(missing.json().data).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: '/code' }] })
    const send = await t.req({ method: 'POST', url: '/v1/account/2fa/email', token: u.token, payload: {} })
    expect(send.statusCode, send.body).toBe(200)
    const code = await lastCode(t, u.email)
    const wrong = await post(u, { ...body, code: code === '000000' ? '111111' : '000000' })
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json().data.code).toBe('INVALID_CODE')
    expect(await snapshot(t)).toEqual(before)

    const right = await post(u, { ...body, code })
    expect(right.statusCode, right.body).toBe(200)
    // The code is single use.
    const again = await post(u, { ...body, code })
    expect(again.statusCode).toBe(400)
    await settleAll(t)
    expect(await t.app.services.chain.balanceOf(body.address, 'avax')).toBe(AVAX / 50n)
    await expectConsistent(t)
  })
})

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body, 409 for another body', async () => {
    const body = { ...good(), amount: 0.03 }
    const headers = { 'idempotency-key': `wd-${Date.now()}` }
    const first = await post(user, body, headers)
    expect(first.statusCode, first.body).toBe(200)
    const before = await snapshot(t)
    const second = await post(user, body, headers)
    expect(second.statusCode).toBe(200)
    expect(second.headers['idempotent-replayed']).toBe('true')
    expect(second.json().data.withdrawalId).toBe(first.json().data.withdrawalId)
    const other = await post(user, { ...body, amount: 0.04 }, headers)
    expect(other.statusCode).toBe(409)
    expect(await snapshot(t)).toEqual(before)
    await settleAll(t)
    expect(await t.app.services.chain.balanceOf(body.address, 'avax')).toBe((3n * AVAX) / 100n)
    await expectConsistent(t)
  })

  it('withdraws once when the process died after writing the withdrawal but before recording its answer', async () => {
    const body = { ...good(), amount: 0.05 }
    const key = `wd-crash-${Date.now()}`
    const headers = { 'idempotency-key': key }
    const first = await post(user, body, headers)
    expect(first.statusCode, first.body).toBe(200)
    // What a process that died between the commit and recording the answer leaves behind: a
    // claim still "in progress", old enough to be taken over by the client's retry.
    await t.database.db
      .updateTable('idempotencyKeys')
      .set({ statusCode: null, response: null, createdAt: new Date(Date.now() - 10 * 60_000) })
      .where('userId', '=', user.id)
      .where('key', '=', key)
      .execute()
    const before = await snapshot(t)
    const retried = await post(user, body, headers)
    expect(retried.statusCode, retried.body).toBe(200)
    expect(retried.json().data.withdrawalId).toBe(first.json().data.withdrawalId)
    expect(await snapshot(t)).toEqual(before)
    await settleAll(t)
    expect(await t.app.services.chain.balanceOf(body.address, 'avax')).toBe((5n * AVAX) / 100n)
    await expectConsistent(t)
  })
})

describe('GET /v1/withdrawals/', () => {
  it("lists only the caller's withdrawals, newest first, paged and filtered", async () => {
    const a = await createUser(t)
    const b = await createUser(t)
    await fundUser(t, 4, a, 'avax', AVAX)
    await fundUser(t, 4, a, 'usdc', 10n * USDC)
    const ids: string[] = []
    for (const [amount, coin] of [
      [0.1, 'avax'],
      [1, 'usdc'],
      [0.2, 'avax'],
    ] as const) {
      const res = await post(a, { amount, coin, address: freshAddress(), password: a.password })
      expect(res.statusCode, res.body).toBe(200)
      ids.push(res.json().data.withdrawalId)
      t.clock.advance(10)
    }
    const page1 = await t.req({ method: 'GET', url: '/v1/withdrawals/?limit=2', token: a.token })
    expect(page1.statusCode).toBe(200)
    expect(page1.json().data).toMatchObject({ pages: 2, page: 1, limit: 2, total: 3 })
    expect(page1.json().data.data.map((w: { _id: string }) => w._id)).toEqual([ids[2], ids[1]])
    const page2 = await t.req({ method: 'GET', url: '/v1/withdrawals/?limit=2&page=2', token: a.token })
    expect(page2.json().data.data.map((w: { _id: string }) => w._id)).toEqual([ids[0]])
    const usdc = await t.req({ method: 'GET', url: '/v1/withdrawals/?coin=USDC', token: a.token })
    expect(usdc.json().data).toMatchObject({ total: 1, data: [{ _id: ids[1], coin: 'usdc', amount: 1 }] })
    const def = await t.req({ method: 'GET', url: '/v1/withdrawals/', token: a.token })
    expect(def.json().data).toMatchObject({ page: 1, limit: 12, pages: 1, total: 3 })

    await settleAll(t)
    const completed = await t.req({ method: 'GET', url: '/v1/withdrawals/?status=completed', token: a.token })
    expect(completed.json().data.total).toBe(3)
    const pending = await t.req({ method: 'GET', url: '/v1/withdrawals/?status=pending', token: a.token })
    expect(pending.json().data.total).toBe(0)

    // Another user sees none of them.
    const other = await t.req({ method: 'GET', url: '/v1/withdrawals/', token: b.token })
    expect(other.json().data).toEqual({ pages: 0, page: 1, limit: 12, total: 0, data: [] })
    await expectConsistent(t)
  })

  it.each([['limit=101'], ['limit=0'], ['page=0'], ['status=done'], ['owner=someone'], ['page=abc']])(
    'refuses %s with 400',
    async (q) => {
      const res = await t.req({ method: 'GET', url: `/v1/withdrawals/?${q}`, token: user.token })
      expect(res.statusCode).toBe(400)
      expect(res.json().data.code).toBe('VALIDATION_ERROR')
    },
  )

  it('needs a token', async () => {
    const res = await t.req({ method: 'GET', url: '/v1/withdrawals/' })
    expect(res.statusCode).toBe(401)
    const bad = await t.req({ method: 'GET', url: '/v1/withdrawals/', token: 'not-a-jwt-token' })
    expect(bad.statusCode).toBe(401)
  })
})
