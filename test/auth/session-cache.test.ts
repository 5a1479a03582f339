// The session cache across API processes: two application instances on one database, as two API
// processes would be. A revocation made through one is refused by the other as soon as the
// commit's notification reaches it, and at once by the one that made it; reads behind the cache
// (profile, wallet balance) are never stale.
import type { FastifyInstance, InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, PASSWORD, type TestUser } from '../helpers/factories.ts'
import { sendFrom, USDC, walletAddress } from '../helpers/money.ts'

let a: TestApp
let b: FastifyInstance

beforeAll(async () => {
  a = await createTestApp()
  b = await buildApp({ config: a.config, database: a.database, clock: a.clock, logger: false })
  await b.ready()
})

afterAll(async () => {
  await b?.close()
  await a?.close()
})

const onB = (opts: InjectOptions & { token?: string }) => {
  const { token, ...rest } = opts
  return b.inject({ ...rest, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}) } })
}

/** Resolves when B has received the notification about `userId`'s sessions. */
function notifiedOnB(userId: string): Promise<void> {
  const cache = b.services.auth.sessionCache!
  return new Promise((resolve) => {
    const off = cache.onNotified((id) => {
      if (id === userId) {
        off()
        resolve()
      }
    })
  })
}

async function loginAgain(user: TestUser): Promise<string> {
  const res = await a.req({
    method: 'POST',
    url: '/v1/auth/login',
    payload: { email: user.email, password: user.password },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data.token
}

/** The token answers on both processes, so both have it cached. */
async function warm(token: string) {
  expect((await a.req({ method: 'GET', url: '/v1/account', token })).statusCode).toBe(200)
  expect((await onB({ method: 'GET', url: '/v1/account', token })).statusCode).toBe(200)
}

describe('session cache across two API processes', () => {
  it('caches a live session: a second read of the same token needs no session lookup', async () => {
    const user = await createUser(a)
    await warm(user.token)
    expect(b.services.auth.sessionCache!.get(sessionOf(user.token))).toMatchObject({ userId: user.id })
  })

  it('logout through one process: refused there at once and by the other once notified', async () => {
    const user = await createUser(a)
    await warm(user.token)
    const seen = notifiedOnB(user.id)
    const out = await a.req({ method: 'POST', url: '/v1/account/logout', token: user.token })
    expect(out.statusCode, out.body).toBe(200)
    expect((await a.req({ method: 'GET', url: '/v1/account', token: user.token })).statusCode).toBe(401)
    await seen
    const res = await onB({ method: 'GET', url: '/v1/account', token: user.token })
    expect(res.statusCode).toBe(401)
    expect(res.json()).toMatchObject({ status: 'error', data: { code: 'UNAUTHENTICATED' } })
  })

  it('a password change revokes the other sessions everywhere and keeps the caller’s', async () => {
    const user = await createUser(a)
    const other = await loginAgain(user)
    await warm(user.token)
    await warm(other)
    const seen = notifiedOnB(user.id)
    const res = await onB({
      method: 'PUT',
      url: '/v1/account/password/change',
      token: user.token,
      payload: { oldPassword: PASSWORD, newPassword: 'An0ther!pass' },
    })
    expect(res.statusCode, res.body).toBe(200)
    // B made the change: refused there at once.
    expect((await onB({ method: 'GET', url: '/v1/account', token: other })).statusCode).toBe(401)
    expect((await onB({ method: 'GET', url: '/v1/account', token: user.token })).statusCode).toBe(200)
    await seen
    expect((await a.req({ method: 'GET', url: '/v1/account', token: other })).statusCode).toBe(401)
    expect((await a.req({ method: 'GET', url: '/v1/account', token: user.token })).statusCode).toBe(200)
  })

  it('revokeSessions (what suspension calls) reaches every process', async () => {
    const user = await createUser(a)
    await warm(user.token)
    const seen = notifiedOnB(user.id)
    await a.app.services.auth.revokeSessions(a.database.db, user.id)
    expect((await a.req({ method: 'GET', url: '/v1/account', token: user.token })).statusCode).toBe(401)
    await seen
    expect((await onB({ method: 'GET', url: '/v1/account', token: user.token })).statusCode).toBe(401)
  })

  it('account deletion reaches every process', async () => {
    const user = await createUser(a)
    await warm(user.token)
    const seen = notifiedOnB(user.id)
    const del = await a.req({
      method: 'POST',
      url: '/v1/account/delete-account',
      token: user.token,
      payload: { password: PASSWORD },
    })
    expect(del.statusCode, del.body).toBe(200)
    await seen
    expect((await onB({ method: 'GET', url: '/v1/account', token: user.token })).statusCode).toBe(401)
  })

  it('a change rolled back leaves the session valid', async () => {
    const user = await createUser(a)
    await warm(user.token)
    await a.database.db
      .transaction()
      .execute(async (tx) => {
        await a.app.services.auth.revokeSessions(tx, user.id)
        throw new Error('rolled back')
      })
      .catch(() => undefined)
    expect((await a.req({ method: 'GET', url: '/v1/account', token: user.token })).statusCode).toBe(200)
    expect((await onB({ method: 'GET', url: '/v1/account', token: user.token })).statusCode).toBe(200)
  })

  it('while the notification connection is down nothing is served from the cache', async () => {
    const user = await createUser(a)
    await warm(user.token)
    const cache = b.services.auth.sessionCache!
    cache.setListening(false)
    try {
      // A revocation B could not hear about: B looks the session up and refuses it.
      await a.database.db
        .updateTable('sessions')
        .set({ revokedAt: new Date() })
        .where('userId', '=', user.id)
        .execute()
      expect((await onB({ method: 'GET', url: '/v1/account', token: user.token })).statusCode).toBe(401)
      expect(cache.size).toBe(0)
    } finally {
      cache.setListening(true)
    }
  })

  it('a profile update is seen on the next read by both processes', async () => {
    const user = await createUser(a)
    await warm(user.token)
    const res = await b.inject({
      method: 'PATCH',
      url: '/v1/account/update',
      headers: { authorization: `Bearer ${user.token}` },
      payload: { firstName: 'Renamed' },
    })
    expect(res.statusCode, res.body).toBe(200)
    for (const r of [
      await a.req({ method: 'GET', url: '/v1/account', token: user.token }),
      await onB({ method: 'GET', url: '/v1/account', token: user.token }),
    ]) {
      expect(r.json().data.firstName).toBe('Renamed')
    }
  })

  it('a wallet balance after a deposit is seen on the next read by both processes', async () => {
    const user = await createUser(a)
    const before = await onB({ method: 'GET', url: '/v1/wallet', token: user.token })
    expect(before.statusCode, before.body).toBe(200)
    const usdcBefore = usdcBalance(before.json().data)
    const to = await walletAddress(a, user)
    const devnet = a.app.services.chain.devnet!
    const outsider = devnet.accounts[1]!
    await devnet.fund(outsider.address, 'usdc', 7n * USDC)
    await sendFrom(a, outsider, to, 'usdc', 7n * USDC)
    await a.app.services.settlement.watcher.scanNow()
    for (const r of [
      await a.req({ method: 'GET', url: '/v1/wallet', token: user.token }),
      await onB({ method: 'GET', url: '/v1/wallet', token: user.token }),
    ]) {
      expect(r.statusCode).toBe(200)
      expect(usdcBalance(r.json().data)).toBe(usdcBefore + 7)
    }
  })
})

function sessionOf(token: string): string {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti
}

function usdcBalance(data: { wallets: { id: string; amount: string }[] }): number {
  return Number(data.wallets.find((x) => x.id === 'usdc')?.amount ?? 0)
}
