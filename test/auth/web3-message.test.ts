// The EIP-4361 message a wallet asks for to sign in (#10): its fields, the chain id, the address
// checks, fresh nonces, and the per-address rate limit.
import { SiweMessage } from 'siwe'
import { getAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Web3Service } from '../../src/modules/auth/web3-service.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { authFlows, wallet } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const { post, expectTokenObject, requestMessage } = authFlows(() => t)

type Web3Deps = ConstructorParameters<typeof Web3Service>[0]

describe('POST /v1/auth/web3/request (#10)', () => {
  it('answers an EIP-4361 message for the address and a web3_sign tempToken', async () => {
    const acct = wallet()
    const before = t.clock.now().getTime()
    const res = await post('/v1/auth/web3/request', { account: acct.address })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body).toEqual({
      status: 'success',
      message: expect.any(String),
      data: { message: expect.any(String), tempToken: expect.any(Object) },
    })
    expectTokenObject(body.data.tempToken)
    expect(body.data.tempToken.expiresIn - before).toBeGreaterThan(14 * 60_000)
    expect(body.data.tempToken.expiresIn - before).toBeLessThanOrEqual(15 * 60_000 + 5000)

    const siwe = new SiweMessage(body.data.message)
    const publicUrl = new URL(t.config.publicUrl)
    expect(siwe.domain).toBe(publicUrl.host)
    expect(siwe.uri).toBe(t.config.publicUrl)
    expect(siwe.address).toBe(acct.address)
    expect(siwe.version).toBe('1')
    expect(siwe.chainId).toBe(t.app.services.web3.chainId())
    expect(siwe.statement).toBe('Approve this request to sign in to WorkPay.')
    expect(siwe.nonce).toMatch(/^[0-9a-f]{32}$/)
    const issuedAt = Date.parse(siwe.issuedAt!)
    expect(issuedAt).toBeGreaterThanOrEqual(before)
    expect(Date.parse(siwe.expirationTime!) - issuedAt).toBe(15 * 60_000)
    // The message is what a wallet verifies too.
    const signature = await acct.signMessage({ message: body.data.message })
    const check = await siwe.verify({ signature }, { suppressExceptions: true })
    expect(check.success).toBe(true)
  })

  it("writes the chain adapter's chain id, and the dev chain's id when there is no adapter", () => {
    expect(t.app.services.web3.chainId()).toBe(t.app.services.chain.chainId)
    const bare = new Web3Service({ ...({} as Web3Deps), chain: () => undefined })
    expect(bare.chainId()).toBe(31337)
  })

  it('accepts an all lower-case address and writes it checksummed; nonces are never reused', async () => {
    const acct = wallet()
    const a = await requestMessage(acct.address.toLowerCase())
    const b = await requestMessage(acct.address.toLowerCase())
    const ma = new SiweMessage(a.message)
    const mb = new SiweMessage(b.message)
    expect(ma.address).toBe(acct.address)
    expect(ma.nonce).not.toBe(mb.nonce)
    expect(a.tempToken.token).not.toBe(b.tempToken.token)
  })

  it('refuses a mixed-case address with a wrong checksum', async () => {
    const addr = getAddress(wallet().address)
    // Flip the case of one letter: still 40 hex digits, no longer the EIP-55 checksum.
    const i = [...addr].findIndex((c, j) => j > 1 && /[a-fA-F]/.test(c))
    const c = addr[i]!
    const bad =
      addr.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + addr.slice(i + 1)
    const res = await post('/v1/auth/web3/request', { account: bad })
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(res.json().data.errors[0].path).toBe('/account')
  })

  it('refuses anything that is not an address', async () => {
    const good = wallet().address
    for (const account of [
      '',
      'hello',
      good.slice(2),
      `${good}0`,
      good.slice(0, 41),
      `0X${good.slice(2)}`,
      `0x${'g'.repeat(40)}`,
      ` ${good}`,
      12345,
      null,
    ]) {
      expectError(await post('/v1/auth/web3/request', { account }), 400, 'VALIDATION_ERROR')
    }
    expectError(await post('/v1/auth/web3/request', {}), 400, 'VALIDATION_ERROR')
    expectError(await post('/v1/auth/web3/request', { account: good, extra: 1 }), 400, 'VALIDATION_ERROR')
  })
})

describe('rate limits on wallet sign-in', () => {
  let limited: TestApp
  beforeAll(async () => {
    limited = await createTestApp({ env: { RATE_LIMIT_AUTH_PER_EMAIL: '2' } })
  })
  afterAll(() => limited.close())

  it('limits message requests per address, case-insensitively', async () => {
    const acct = wallet()
    const ask = (account: string) =>
      limited.req({ method: 'POST', url: '/v1/auth/web3/request', payload: { account } })
    expect((await ask(acct.address)).statusCode).toBe(200)
    expect((await ask(acct.address.toLowerCase())).statusCode).toBe(200)
    const res = await ask(acct.address)
    expectError(res, 429, 'RATE_LIMITED')
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
    // Another address is not affected.
    expect((await ask(wallet().address)).statusCode).toBe(200)
  })
})
