// `sdk.wallet` and `sdk.withdrawal` against the real service over a socket, with real deposits and
// withdrawals on the dev chain (#18, #19, #21–#25).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestUser } from '../helpers/factories.ts'
import { AVAX, freshAddress, fundUser, settleAll } from '../withdrawals/helpers.ts'
import {
  expectError,
  expectOk,
  expectShape,
  type SdkContext,
  type SdkUser,
  signUp,
  startSdk,
  UNKNOWN_ID,
} from './helpers.ts'
import {
  Exchange,
  FindTransactions,
  FindWithdrawals,
  SingleWallet,
  Transaction,
  WalletSummary,
} from './shapes.ts'

let ctx: SdkContext
let rich: SdkUser
let poor: SdkUser
const asTestUser = (u: SdkUser): TestUser => ({
  id: u.id,
  email: u.email,
  password: u.password,
  token: u.token,
})

beforeAll(async () => {
  ctx = await startSdk()
  rich = await signUp(ctx)
  poor = await signUp(ctx)
  // 2 AVAX from a development account outside the platform, credited by the deposit watcher
  await fundUser(ctx.t, 0, asTestUser(rich), 'avax', 2n * AVAX)
})
afterAll(() => ctx?.t.close())

describe('wallet.getWallets (#18)', () => {
  it('answers one wallet per coin with six-decimal amounts and USD values', async () => {
    const res = await ctx.sdk.wallet.getWallets(rich.token)
    const data = expectOk(res)
    expectShape(WalletSummary, data, 'the wallet summary')
    const avax = data.wallets.find((w: { id: string }) => w.id === 'avax')
    const usdc = data.wallets.find((w: { id: string }) => w.id === 'usdc')
    expect(avax).toMatchObject({ amount: '2.000000', usdValue: 50, coin: 'AVAX' })
    expect(usdc).toMatchObject({ amount: '0.000000', usdValue: 0, coin: 'USDC' })
    expect(avax.address).toBe(usdc.address)
    expect(data).toMatchObject({ totalBalance: 50, value: 50 })

    const empty = expectOk(await ctx.sdk.wallet.getWallets(poor.token))
    expect(empty).toMatchObject({ totalBalance: 0, value: 0 })
    expect(empty.wallets.every((w: { amount: string }) => w.amount === '0.000000')).toBe(true)
    expect(empty.wallets[0].address).not.toBe(avax.address)
    expectError(await ctx.sdk.wallet.getWallets(''), 401, 'UNAUTHENTICATED')
  })
})

describe('wallet.getSingleWalletByCoin (#19)', () => {
  it('answers the wallet of one coin', async () => {
    const res = await ctx.sdk.wallet.getSingleWalletByCoin(rich.token, 'avax')
    const data = expectOk(res)
    expectShape(SingleWallet, data, 'the coin wallet')
    expect(data).toMatchObject({ coin: 'AVAX', amount: 2, usdValue: 50 })
    expect(expectOk(await ctx.sdk.wallet.getSingleWalletByCoin(poor.token, 'usdc'))).toMatchObject({
      coin: 'USDC',
      amount: 0,
      usdValue: 0,
    })
    expectError(await ctx.sdk.wallet.getSingleWalletByCoin(rich.token, 'nocoin'), 400, 'VALIDATION_ERROR')
    expectError(await ctx.sdk.wallet.getSingleWalletByCoin('', 'avax'), 401, 'UNAUTHENTICATED')
  })
})

describe('wallet.getSingleWalletById', () => {
  it('answers the caller’s wallet by the `_id` of #19 (the SDK asks for /v1/wallet//{id})', async () => {
    const byCoin = expectOk(await ctx.sdk.wallet.getSingleWalletByCoin(rich.token, 'avax'))
    const res = await ctx.sdk.wallet.getSingleWalletById(rich.token, byCoin._id)
    const data = expectOk(res)
    expectShape(SingleWallet, data, 'the wallet by id')
    expect(data).toEqual(byCoin)
    // someone else's wallet is not revealed
    expectError(await ctx.sdk.wallet.getSingleWalletById(poor.token, byCoin._id), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.wallet.getSingleWalletById(rich.token, UNKNOWN_ID), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.wallet.getSingleWalletById('', byCoin._id), 401, 'UNAUTHENTICATED')
  })
})

describe('wallet.getExchange (#21)', () => {
  it('answers the USD rate of every coin', async () => {
    const res = await ctx.sdk.wallet.getExchange(rich.token)
    const data = expectOk(res)
    expectShape(Exchange, data, 'the rates')
    expect(data).toEqual({ avax: 25, usdc: 1 })
    expectError(await ctx.sdk.wallet.getExchange(''), 401, 'UNAUTHENTICATED')
  })
})

describe('wallet.getTransactions (#24)', () => {
  it('lists the caller’s transactions (the SDK asks for /v1/transaction/)', async () => {
    const res = await ctx.sdk.wallet.getTransactions(rich.token)
    const data = expectOk(res)
    expectShape(FindTransactions, data, 'the transaction list')
    expect(data).toMatchObject({ page: 1, total: 1, pages: 1 })
    expect(data.transactions[0]).toMatchObject({
      owner: rich.id,
      amount: 2,
      currency: 'avax',
      type: 'deposit',
      status: 'completed',
      usdValue: 50,
      rate: '25',
      isFee: false,
      isPlatformFee: false,
    })
    expect(data.transactions[0].coin.reference).toBe('avax')
    expect(expectOk(await ctx.sdk.wallet.getTransactions(poor.token))).toMatchObject({
      total: 0,
      transactions: [],
    })
    expectError(await ctx.sdk.wallet.getTransactions(''), 401, 'UNAUTHENTICATED')
  })
})

describe('wallet.getATransaction (#25)', () => {
  it('answers one of the caller’s transactions; anyone else’s is 404', async () => {
    const [deposit] = expectOk(await ctx.sdk.wallet.getTransactions(rich.token)).transactions
    const res = await ctx.sdk.wallet.getATransaction(rich.token, deposit._id)
    const data = expectOk(res)
    expectShape(Transaction, data, 'the transaction')
    expect(data).toEqual(deposit)
    expectError(await ctx.sdk.wallet.getATransaction(poor.token, deposit._id), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.wallet.getATransaction(rich.token, UNKNOWN_ID), 404, 'NOT_FOUND')
    expectError(await ctx.sdk.wallet.getATransaction(rich.token, 'not-an-id'), 400, 'VALIDATION_ERROR')
    expectError(await ctx.sdk.wallet.getATransaction('', deposit._id), 401, 'UNAUTHENTICATED')
  })
})

describe('withdrawal.createWithdrawal (#22) and withdrawal.fetchWithdrawal (#23)', () => {
  const to = freshAddress()
  let withdrawalId: string

  it('withdrawal.createWithdrawal holds the amount and sends it on chain', async () => {
    const base = { coin: 'avax', address: to, password: rich.password }
    expectError(
      await ctx.sdk.withdrawal.createWithdrawal(rich.token, {
        ...base,
        amount: 0.5,
        password: 'Wrong!pass1',
      }),
      401,
      'INVALID_CREDENTIALS',
    )
    expectError(
      await ctx.sdk.withdrawal.createWithdrawal(rich.token, { ...base, amount: 5 }),
      422,
      'INSUFFICIENT_BALANCE',
    )
    expectError(
      await ctx.sdk.withdrawal.createWithdrawal(rich.token, { ...base, amount: 0.5, address: '0x1234' }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await ctx.sdk.withdrawal.createWithdrawal(rich.token, { ...base, amount: 0.5, coin: 'nocoin' }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await ctx.sdk.withdrawal.createWithdrawal(poor.token, {
        ...base,
        amount: 0.5,
        password: poor.password,
      }),
      422,
      'INSUFFICIENT_BALANCE',
    )
    expectError(
      await ctx.sdk.withdrawal.createWithdrawal('', { ...base, amount: 0.5 }),
      401,
      'UNAUTHENTICATED',
    )

    const res = await ctx.sdk.withdrawal.createWithdrawal(rich.token, { ...base, amount: 0.5 })
    const data = expectOk(res)
    // SPEC #22 answers `{ withdrawalId }` (the SDK types it as the whole record)
    expect(data).toEqual({ withdrawalId: expect.stringMatching(/^[0-9a-f]{24}$/) })
    withdrawalId = data.withdrawalId
    const wallet = expectOk(await ctx.sdk.wallet.getSingleWalletByCoin(rich.token, 'avax'))
    expect(wallet.amount).toBeLessThan(1.5)
    expect(wallet.amount).toBeGreaterThan(1.49)

    await settleAll(ctx.t)
    expect(await ctx.t.app.services.chain.balanceOf(to, 'avax')).toBe(AVAX / 2n)
  })

  it('withdrawal.fetchWithdrawal lists the caller’s withdrawals (the SDK sends `owner`)', async () => {
    const res = await ctx.sdk.withdrawal.fetchWithdrawal(rich.token, { owner: rich.id, page: 1, limit: 10 })
    const data = expectOk(res)
    expectShape(FindWithdrawals, data, 'the withdrawal list')
    expect(data).toMatchObject({ page: 1, pages: 1, total: 1 })
    expect(data.data[0]).toMatchObject({
      _id: withdrawalId,
      owner: rich.id,
      coin: 'avax',
      amount: 0.5,
      usdValue: 12.5,
      usdRate: 25,
      status: 'completed',
      retryCount: 0,
      errMsg: [],
    })
    expect(data.data[0].address.toLowerCase()).toBe(to.toLowerCase())

    // another user never sees them, whatever `owner` says
    const other = await ctx.sdk.withdrawal.fetchWithdrawal(poor.token, { owner: rich.id })
    if (other.code === 200) expect(other.data.data).toEqual([])
    else {
      expect(other.code).toBeGreaterThanOrEqual(400)
      expect(other.code).toBeLessThan(500)
    }
    expect(expectOk(await ctx.sdk.withdrawal.fetchWithdrawal(poor.token, { owner: poor.id }))).toMatchObject({
      total: 0,
      data: [],
    })
    expectError(await ctx.sdk.withdrawal.fetchWithdrawal('', { owner: rich.id }), 401, 'UNAUTHENTICATED')

    // the transaction list shows the withdrawal beside the deposit
    const txs = expectOk(await ctx.sdk.wallet.getTransactions(rich.token)).transactions
    expect(
      txs.some((t: { type: string; amount: number }) => t.type === 'withdrawal' && t.amount === 0.5),
    ).toBe(true)
  })
})
