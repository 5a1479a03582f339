// Rate sources: static from configuration, and the HTTP price feed (against a real local HTTP
// server) with its cache TTL and staleness limit; then #21 through the app with a feed.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpRates, staticRates } from '../../src/platform/rates/sources.ts'
import { RateError } from '../../src/platform/rates/types.ts'
import { createTestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'

/** a price feed whose answer and health the test controls */
let feed: { status: number; body: unknown; hits: number }
let server: Server
let url: string
beforeAll(async () => {
  feed = { status: 200, body: {}, hits: 0 }
  server = createServer((_req, res) => {
    feed.hits++
    res.writeHead(feed.status, { 'content-type': 'application/json' })
    res.end(typeof feed.body === 'string' ? feed.body : JSON.stringify(feed.body))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prices`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

function clock() {
  let t = 1_000_000
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

describe('static rates', () => {
  it('serves the configured rates as canonical decimal strings', async () => {
    const src = staticRates({ avax: '25.50', usdc: '1' })
    expect(src.kind).toBe('static')
    expect(await src.getRates()).toEqual({ avax: '25.5', usdc: '1' })
    expect(await src.getRate('USDC')).toBe('1')
    await expect(src.getRate('doge')).rejects.toMatchObject({ code: 'UNKNOWN' })
  })

  it('refuses an invalid configured rate', () => {
    expect(() => staticRates({ avax: '-1' })).toThrow(RateError)
  })
})

describe('HTTP price feed', () => {
  it('fetches, keeps only known coins, turns numbers into exact decimal strings, and caches for the TTL', async () => {
    feed = { status: 200, body: { AVAX: 31.25, usdc: 0.9999, shib: 1e-7 }, hits: 0 }
    const c = clock()
    const src = httpRates({
      url,
      references: ['avax', 'usdc', 'shib'],
      ttlMs: 60_000,
      maxAgeMs: 600_000,
      now: c.now,
    })
    expect(await src.getRates()).toEqual({ avax: '31.25', usdc: '0.9999', shib: '0.0000001' })
    expect(await src.getRate('avax')).toBe('31.25')
    expect(feed.hits).toBe(1)
    c.advance(59_000)
    feed.body = { avax: 40, usdc: 1 }
    expect(await src.getRate('avax')).toBe('31.25')
    expect(feed.hits).toBe(1)
    c.advance(2_000)
    expect(await src.getRate('avax')).toBe('40')
    expect(await src.getRates()).toEqual({ avax: '40', usdc: '1' })
    expect(feed.hits).toBe(2)
    await expect(src.getRate('shib')).rejects.toMatchObject({ code: 'UNKNOWN' })
  })

  it('asks for the coins it keeps at every read: a coin added later is priced from the same answer', async () => {
    feed = { status: 200, body: { avax: 20, gld: '3.5', junk: 'abc' }, hits: 0 }
    const known = ['avax']
    const src = httpRates({
      url,
      references: () => known,
      ttlMs: 60_000,
      maxAgeMs: 600_000,
      now: clock().now,
    })
    expect(await src.getRates()).toEqual({ avax: '20' })
    await expect(src.getRate('gld')).rejects.toMatchObject({ code: 'UNKNOWN' })
    known.push('gld')
    expect(await src.getRate('gld')).toBe('3.5')
    expect(await src.getRates()).toEqual({ avax: '20', gld: '3.5' })
    expect(feed.hits).toBe(1)
    // an invalid price of a coin it keeps is refused, as before
    known.push('junk')
    const again = httpRates({
      url,
      references: () => known,
      ttlMs: 60_000,
      maxAgeMs: 600_000,
      now: clock().now,
    })
    await expect(again.getRates()).rejects.toMatchObject({ code: 'INVALID' })
  })

  it('concurrent callers share one refresh', async () => {
    feed = { status: 200, body: { avax: 1 }, hits: 0 }
    const src = httpRates({ url, references: ['avax'], ttlMs: 1000, maxAgeMs: 10_000, now: clock().now })
    await Promise.all([src.getRates(), src.getRates(), src.getRate('avax')])
    expect(feed.hits).toBe(1)
  })

  it('serves the last prices while the feed is down, until they are older than the staleness limit', async () => {
    feed = { status: 200, body: { avax: 20, usdc: 1 }, hits: 0 }
    const c = clock()
    const src = httpRates({ url, references: ['avax', 'usdc'], ttlMs: 1000, maxAgeMs: 5000, now: c.now })
    expect(await src.getRate('avax')).toBe('20')
    feed.status = 503
    c.advance(4000)
    expect(await src.getRate('avax')).toBe('20')
    c.advance(1500)
    const err = await src.getRate('avax').catch((e) => e)
    expect(err).toBeInstanceOf(RateError)
    expect(err.code).toBe('STALE')
    // it recovers as soon as the feed answers again
    feed.status = 200
    feed.body = { avax: 22, usdc: 1 }
    expect(await src.getRate('avax')).toBe('22')
  })

  it('with no answer ever, a down feed is UNAVAILABLE, and garbage is INVALID: never a silent 0', async () => {
    feed = { status: 500, body: {}, hits: 0 }
    const down = httpRates({ url, references: ['avax'], ttlMs: 1000, maxAgeMs: 5000, now: clock().now })
    await expect(down.getRates()).rejects.toMatchObject({ code: 'UNAVAILABLE' })
    feed = { status: 200, body: 'not json', hits: 0 }
    await expect(down.getRates()).rejects.toMatchObject({ code: 'UNAVAILABLE' })
    for (const body of [[1, 2], { avax: -3 }, { avax: 'abc' }, { avax: null }]) {
      feed = { status: 200, body, hits: 0 }
      const src = httpRates({ url, references: ['avax'], ttlMs: 1000, maxAgeMs: 5000, now: clock().now })
      await expect(src.getRates()).rejects.toMatchObject({ code: 'INVALID' })
    }
  })
})

describe('#21 with a price feed configured', () => {
  it('answers the feed rates, then 503 UNAVAILABLE once they are stale', async () => {
    feed = { status: 200, body: { avax: 33.5, usdc: 1.001 }, hits: 0 }
    const t = await createTestApp({
      env: { RATE_FEED_URL: url, RATE_FEED_TTL_MS: '1000', RATE_FEED_MAX_AGE_MS: '60000' },
    })
    try {
      const user = await createUser(t)
      expect(t.app.services.rates.kind).toBe('http')
      const res = await t.req({ method: 'GET', url: '/v1/transaction/exchange', token: user.token })
      expect(res.statusCode).toBe(200)
      expect(res.json().data).toEqual({ avax: 33.5, usdc: 1.001 })
      feed.status = 502
      t.clock.advance(61_000)
      const stale = await t.req({ method: 'GET', url: '/v1/transaction/exchange', token: user.token })
      expect(stale.statusCode).toBe(503)
      expect(stale.json()).toEqual({
        status: 'error',
        message: expect.any(String),
        data: { code: 'UNAVAILABLE' },
      })
    } finally {
      await t.close()
    }
  })
})
