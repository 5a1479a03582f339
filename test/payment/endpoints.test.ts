// #16, #17, #21 through the real app (which starts its own devnet: about a second).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let user: TestUser
beforeAll(async () => {
  t = await createTestApp()
  user = await createUser(t)
})
afterAll(() => t.close())

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const HEX24 = /^[0-9a-f]{24}$/

describe('GET /v1/payment/coins (#16)', () => {
  it('lists the active coins in display order with exactly the Coin fields', async () => {
    const res = await t.req({ method: 'GET', url: '/v1/payment/coins', token: user.token })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toEqual({ status: 'success', message: expect.any(String), data: expect.any(Array) })
    const [avax, usdc] = body.data
    expect(body.data).toHaveLength(2)
    expect(avax).toEqual({
      _id: expect.stringMatching(HEX24),
      name: 'Avalanche',
      symbol: 'AVAX',
      reference: 'avax',
      icon: expect.stringMatching(/^https:\/\//),
      decimal: '18',
      isToken: false,
      rpcChainId: '31337',
      active: true,
      order: 1,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      __v: 0,
    })
    expect(avax).not.toHaveProperty('contractAddress')
    expect(usdc).toEqual({
      _id: expect.stringMatching(HEX24),
      name: 'USD Coin',
      symbol: 'USDC',
      reference: 'usdc',
      icon: expect.any(String),
      contractAddress: t.app.services.chain.coin('usdc').contractAddress,
      decimal: '6',
      isToken: true,
      rpcChainId: '31337',
      active: true,
      order: 2,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      __v: 0,
    })
  })

  it('needs a valid bearer token', async () => {
    expectError(await t.req({ method: 'GET', url: '/v1/payment/coins' }), 401, 'UNAUTHENTICATED')
    expectError(
      await t.req({ method: 'GET', url: '/v1/payment/coins', token: 'not.a.jwt' }),
      401,
      'UNAUTHENTICATED',
    )
  })
})

describe('GET /v1/payment/rpc (#17)', () => {
  it('returns the chain configuration object', async () => {
    const res = await t.req({ method: 'GET', url: '/v1/payment/rpc', token: user.token })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      status: 'success',
      message: expect.any(String),
      data: {
        _id: expect.stringMatching(HEX24),
        rpcName: 'WorkPay Devnet',
        rpcChainId: '31337',
        rpcUrls: [],
        blockExplorerUrls: [],
        rpcNativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: '18' },
        active: true,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        __v: 0,
      },
    })
    expect((await t.app.services.coins.chain())._id).toBe(res.json().data._id)
  })

  it('needs a bearer token', async () => {
    expectError(await t.req({ method: 'GET', url: '/v1/payment/rpc' }), 401, 'UNAUTHENTICATED')
  })
})

describe('GET /v1/transaction/exchange (#21)', () => {
  it('maps every active coin reference to its USD rate as a number', async () => {
    const res = await t.req({ method: 'GET', url: '/v1/transaction/exchange', token: user.token })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      status: 'success',
      message: expect.any(String),
      data: { avax: 25, usdc: 1 },
    })
  })

  it('needs a bearer token', async () => {
    expectError(await t.req({ method: 'GET', url: '/v1/transaction/exchange' }), 401, 'UNAUTHENTICATED')
  })
})

describe('services.coins', () => {
  it('gets an active coin by reference in any case; an unknown one is a 400 VALIDATION_ERROR', async () => {
    const coins = t.app.services.coins
    expect((await coins.get('USDC')).decimals).toBe(6)
    await expect(coins.get('doge')).rejects.toMatchObject({ code: 'VALIDATION_ERROR', statusCode: 400 })
  })

  it('converts amounts exactly between decimal text and base units', () => {
    const coins = t.app.services.coins
    expect(coins.parse(1.5, 'usdc')).toBe(1_500_000n)
    expect(coins.parse('0.000001', 'usdc')).toBe(1n)
    expect(coins.parse(0.1, 'avax')).toBe(100_000_000_000_000_000n)
    expect(coins.parse(1e-18, 'avax')).toBe(1n)
    expect(coins.parse(0, 'usdc')).toBe(0n)
    expect(() => coins.parse(0.0000001, 'usdc')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    )
    expect(() => coins.parse(-1, 'usdc')).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }))
    expect(() => coins.parse(Number.NaN, 'usdc')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    )
    expect(() => coins.parse('1,5', 'usdc')).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }))
    expect(() => coins.parse(1, 'doge')).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }))
    expect(coins.format(1_500_000n, 'usdc')).toBe('1.5')
    expect(coins.format(0n, 'usdc', 6)).toBe('0.000000')
    expect(coins.format(123_456_789_123_456_789n, 'avax', 6)).toBe('0.123456')
    expect(coins.format(2n * 10n ** 18n, 'avax')).toBe('2')
    expect(coins.toNumber(1_250_000n, 'usdc')).toBe(1.25)
  })
})

describe('start-up sync', () => {
  it('keeps coin ids and versions across restarts when nothing changed', async () => {
    const before = await t.req({ method: 'GET', url: '/v1/payment/coins', token: user.token })
    const again = (await import('../../src/modules/payment/service.ts')).PaymentService
    const svc = new again({
      db: t.database.db,
      clock: t.clock,
      chain: t.app.services.chain,
      rates: t.app.services.rates,
      chainSettings: {
        rpcName: 'WorkPay Devnet',
        rpcChainId: '31337',
        rpcUrls: [],
        blockExplorerUrls: [],
        rpcNativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: '18' },
      },
    })
    await svc.init()
    expect(await svc.coinRecords()).toEqual(before.json().data)
  })
})
