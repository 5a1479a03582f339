// The typed client in clients/typescript, against the listening service: sign up, verify, read the
// account and the wallet, create and read a collection, and the failure envelope of an error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWorkPayClient, describeError, type User, type Wallet } from '../../clients/typescript/index.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { lastCode, PASSWORD, uniqueEmail } from '../helpers/factories.ts'

let t: TestApp
let baseUrl: string

beforeAll(async () => {
  t = await createTestApp()
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(() => t.close())

describe('the typed client', () => {
  it('signs up, verifies, and reads the account and the wallet', async () => {
    let token: string | undefined
    const api = createWorkPayClient({ baseUrl, token: () => token })
    const email = uniqueEmail('client')

    const created = await api.POST('/v1/auth/create-account', {
      body: { firstName: 'Ada', lastName: 'Lovelace', email, password: PASSWORD, confirmPassword: PASSWORD },
    })
    expect(created.response.status).toBe(202)
    expect(created.response.headers.get('x-request-id')).toBeTruthy()
    const tempToken = created.data!.data.tempToken.token

    const verified = await api.POST('/v1/auth/account/verify', {
      body: { token: await lastCode(t, email), tempToken },
    })
    expect(verified.error).toBeUndefined()
    token = verified.data!.data.token

    const account = await api.GET('/v1/account')
    const user: User = account.data!.data
    expect(user).toMatchObject({ email, firstName: 'Ada', emailVerified: true })

    const wallet = await api.GET('/v1/wallet')
    const summary: Wallet = wallet.data!.data
    expect(summary.totalBalance).toBe(0)
    expect(summary.wallets.map((w) => w.id).sort()).toEqual(['avax', 'usdc'])
    for (const entry of summary.wallets) expect(entry.amount).toBe('0.000000')

    const coin = await api.GET('/v1/wallet/coin/{coin}', { params: { path: { coin: 'avax' } } })
    expect(coin.data!.data).toMatchObject({ coin: 'AVAX', amount: 0, usdValue: 0 })
  })

  it('creates and reads a collection, and answers failures as the error envelope', async () => {
    const email = uniqueEmail('client')
    const api = createWorkPayClient({ baseUrl })
    const created = await api.POST('/v1/auth/create-account', {
      body: { firstName: 'Grace', lastName: 'Hopper', email, password: PASSWORD, confirmPassword: PASSWORD },
    })
    const verified = await api.POST('/v1/auth/account/verify', {
      body: { token: await lastCode(t, email), tempToken: created.data!.data.tempToken.token },
    })
    const authed = createWorkPayClient({ baseUrl, token: verified.data!.data.token })

    const made = await authed.POST('/v1/collection', {
      body: { type: 'job', name: 'Landing page', description: 'One responsive page', paymentFee: '150.50' },
    })
    expect(made.error).toBeUndefined()
    const id = made.data!.data._id
    const read = await authed.GET('/v1/collection/{id}', { params: { path: { id } } })
    expect(read.data!.data).toMatchObject({ _id: id, name: 'Landing page', paymentFee: 150.5 })

    const missing = await authed.GET('/v1/collection/{id}', { params: { path: { id: 'f'.repeat(24) } } })
    expect(missing.response.status).toBe(404)
    expect(missing.data).toBeUndefined()
    expect(missing.error!.data.code).toBe('NOT_FOUND')
    expect(describeError(missing.error)).toBe('NOT_FOUND: collection not found')

    const anonymous = await api.GET('/v1/wallet')
    expect(anonymous.response.status).toBe(401)
    expect(anonymous.error!.data.code).toBe('UNAUTHENTICATED')

    const login = await api.POST('/v1/auth/login', { body: { email, password: 'wrong-Password1' } })
    expect(login.error!.data.code).toBe('INVALID_CREDENTIALS')
  })
})
