// One rule for a USD price that cannot be had: a record stores no rate (never 0), and an answer
// that needs a rate is 503. The watcher reads rates before its transaction, never inside it.
// Against a real HTTP price feed on loopback that the test takes down and brings back.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { sendFrom, USDC } from '../helpers/money.ts'

let t: TestApp
let feed: Server
let feedUp = false
let user: TestUser
let other: TestUser
const outsider = () => t.app.services.chain.devnet!.accounts[7]!

beforeAll(async () => {
  feed = createServer((_req, res) => {
    if (!feedUp) return res.writeHead(503).end()
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ avax: 30, usdc: '1.0' }))
  })
  await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve))
  const port = (feed.address() as AddressInfo).port
  t = await createTestApp({
    env: { RATE_FEED_URL: `http://127.0.0.1:${port}/prices`, RATE_FEED_TTL_MS: '0' },
  })
  user = await createUser(t)
  other = await createUser(t)
  await t.app.services.chain.devnet!.fund(outsider().address, 'usdc', 1_000n * USDC)
})
afterAll(async () => {
  await t?.close()
  await new Promise((resolve) => feed?.close(resolve))
})

/** The user's deposit address (the wallet views need rates; this does not). */
async function addressOf(u: TestUser) {
  return (await t.app.services.wallets.ensureUserWallet(u.id)).key.address
}

async function deposits(u: TestUser) {
  const res = await t.req({ method: 'GET', url: '/v1/transaction?type=deposit', token: u.token })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data.transactions as { _id: string; rate: string; usdValue: number; amount: number }[]
}

describe('a USD rate that cannot be had', () => {
  it('is stored as no rate on the deposit record, and refuses answers that need one with 503', async () => {
    feedUp = false
    await sendFrom(t, outsider(), await addressOf(user), 'usdc', 12n * USDC)
    await t.app.services.settlement.watcher.scanNow()
    expect(await t.app.services.ledger.balance(t.database.db, 'user', user.id, 'usdc')).toBe(12n * USDC)
    const [record] = await deposits(user)
    expect(record).toMatchObject({ amount: 12, rate: '', usdValue: 0 })
    const row = await t.database.db
      .selectFrom('transactions')
      .select(['rate', 'usdValue'])
      .where('id', '=', record!._id)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ rate: null, usdValue: null })

    const expect503 = (res: { statusCode: number; json(): any; body: string }) => {
      expect(res.statusCode, res.body).toBe(503)
      expect(res.json()).toMatchObject({ status: 'error', data: { code: 'UNAVAILABLE' } })
    }
    expect503(await t.req({ method: 'GET', url: '/v1/wallet', token: user.token }))
    expect503(await t.req({ method: 'GET', url: '/v1/wallet/coin/usdc', token: user.token }))
    expect503(
      await t.req({
        method: 'POST',
        url: '/v1/escrow/initiate',
        token: user.token,
        payload: {
          title: 'A logo',
          description: 'Vector',
          amount: 10,
          coin: 'usdc',
          isPrivate: false,
          isFundingRequest: false,
          receiverId: other.id,
        },
      }),
    )
    const before = await t.database.db.selectFrom('withdrawals').select('id').execute()
    expect503(
      await t.req({
        method: 'POST',
        url: '/v1/withdrawals/',
        token: user.token,
        payload: { amount: 1, coin: 'usdc', address: outsider().address, password: user.password },
      }),
    )
    expect(await t.database.db.selectFrom('withdrawals').select('id').execute()).toEqual(before)
  })

  it('is stored once the feed answers again', async () => {
    feedUp = true
    await sendFrom(t, outsider(), await addressOf(user), 'usdc', 3n * USDC)
    await t.app.services.settlement.watcher.scanNow()
    const list = await deposits(user)
    expect(list.map((d) => [d.amount, d.rate, d.usdValue])).toEqual([
      [3, '1', 3],
      [12, '', 0],
    ])
    const wallet = await t.req({ method: 'GET', url: '/v1/wallet', token: user.token })
    expect(wallet.statusCode, wallet.body).toBe(200)
    expect(wallet.json().data.wallets.find((w: { id: string }) => w.id === 'usdc')).toMatchObject({
      amount: '15.000000',
      usdValue: 15,
    })
  })
})
