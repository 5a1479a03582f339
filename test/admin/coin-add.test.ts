// A brand-new coin added by an operator at run time, on a real database and the dev chain: an
// ERC-20 contract deployed in the test is added through the admin API and, without a restart,
// deposits of it are credited, wallets list it, withdrawals of it land on chain and the ledger
// reconciles; a second app instance on the same database learns it through the notification and
// moves it too. Every refusal (permissions, the address, the contract, duplicates, decimals, a
// price) leaves no coin and no audit row.
import { sql } from 'kysely'
import type { Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  balanceOf,
  expectConsistent,
  freshAddress,
  settleAll,
  walletAddress,
} from '../withdrawals/helpers.ts'
import {
  deployNotAToken,
  deployToken,
  mint,
  openSecondApp,
  payToken,
  type SecondApp,
} from './coin-add-support.ts'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId } from './helpers.ts'

let t: TestApp
let second: SecondApp
let admin: TestUser
const run = runId()
const reason = 'Listing approved in change 118'
/** the dev account that deploys and owns the test tokens */
const owner = () => t.app.services.chain.devnet!.accounts[9]!
const GLD = 10n ** 8n
let gold: Address

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run)
  gold = await deployToken(t, owner(), { name: 'Gold Token', symbol: 'GLD', decimals: 8 })
  // Started before the coin exists: it can only learn it at run time.
  second = await openSecondApp(t, adminEnv(run))
}, 120_000)
afterAll(async () => {
  await second?.close()
  await t?.close()
})

/** `token` '': no token */
const add = (payload: Record<string, unknown>, token = admin.token) =>
  t.req({ method: 'POST', url: '/v1/admin/coins', token, payload: { reason, chain: '31337', ...payload } })
const refs = (list: { reference: string }[]) => list.map((c) => c.reference)
const publicCoins = async (app: { inject: TestApp['app']['inject'] } = t.app) =>
  refs((await app.inject({ method: 'GET', url: '/v1/payment-public/coins' })).json().data)
const coinRows = () => t.database.db.selectFrom('coins').select(['reference', 'addedBy']).execute()

/** Nothing was written by a refused addition. */
async function expectNothingAdded() {
  expect((await coinRows()).filter((c) => c.addedBy !== null)).toEqual([])
  expect(await auditRows(t, 'coin.add')).toEqual([])
}

describe('adding a coin at run time: who may', () => {
  it('answers 401 without a token, 403 to a user and to an admin without a fresh second factor', async () => {
    const user = await createUser(t)
    const unelevated = await createAdmin(t, run, 1, false)
    const body = { symbol: 'GLD', name: 'Gold Token', contractAddress: gold }
    expectError(await add(body, ''), 401, 'UNAUTHENTICATED')
    expectError(await add(body, user.token), 403, 'FORBIDDEN')
    const res = await add(body, unelevated.token)
    expectError(res, 403, 'FORBIDDEN')
    expect(res.json().message).toMatch(/POST \/v1\/admin\/session/)
    // The guard comes before the body: a user learns nothing from validation.
    expectError(await add({ symbol: '' }, user.token), 403, 'FORBIDDEN')
    await expectNothingAdded()
  })
})

describe('adding a coin at run time: refusals', () => {
  it('answers 400 for a malformed address, a wrong checksum, another chain, bad decimals or rate', async () => {
    const base = { symbol: 'GLD', name: 'Gold Token', contractAddress: gold }
    expectError(await add({ ...base, contractAddress: '0x1234' }), 400, 'VALIDATION_ERROR')
    expectError(await add({ ...base, contractAddress: 'gold' }), 400, 'VALIDATION_ERROR')
    // one letter of the checksummed address in the other case: the checksum no longer holds
    const flipped = gold.replace(/[a-f]/, (ch) => ch.toUpperCase())
    const bad = await add({ ...base, contractAddress: flipped })
    expectError(bad, 400, 'VALIDATION_ERROR')
    expect(bad.json().data.errors[0].path).toBe('/contractAddress')
    const chain = await add({ ...base, chain: '43114' })
    expectError(chain, 400, 'VALIDATION_ERROR')
    expect(chain.json().data.errors[0].path).toBe('/chain')
    expectError(await add({ ...base, decimals: 37 }), 400, 'VALIDATION_ERROR')
    expectError(await add({ ...base, decimals: -1 }), 400, 'VALIDATION_ERROR')
    expectError(await add({ ...base, rate: '0' }), 400, 'VALIDATION_ERROR')
    expectError(await add({ ...base, rate: '-2' }), 400, 'VALIDATION_ERROR')
    expectError(await add({ ...base, reference: 'g ld' }), 400, 'VALIDATION_ERROR')
    expectError(await add({ ...base, extra: true }), 400, 'VALIDATION_ERROR')
    expectError(await add({ name: 'Gold Token', contractAddress: gold }), 400, 'VALIDATION_ERROR')
    await expectNothingAdded()
  })

  it('answers 422 when there is no contract at the address, or the contract is no ERC-20 token', async () => {
    const nobody = await add({ symbol: 'NONE', name: 'Nothing', contractAddress: freshAddress() })
    expectError(nobody, 422, 'CONTRACT_NOT_FOUND')
    expect(nobody.json().message).toMatch(/No contract is deployed/)
    const other = await deployNotAToken(t, owner())
    const notToken = await add({ symbol: 'NOPE', name: 'No token', contractAddress: other })
    expectError(notToken, 422, 'CONTRACT_NOT_ERC20')
    expect(notToken.json().message).toMatch(/not an ERC-20 token/)
    await expectNothingAdded()
  })

  it('answers 422 when the given decimals are not what the contract says', async () => {
    const res = await add({ symbol: 'GLD', name: 'Gold Token', contractAddress: gold, decimals: 18 })
    expectError(res, 422, 'TOKEN_DECIMALS_MISMATCH')
    expect(res.json().message).toMatch(/8 decimals, not 18/)
    expect(res.json().data.decimals).toBe(8)
    await expectNothingAdded()
  })

  it('answers 422 for a token with more than 36 decimals', async () => {
    const wide = await deployToken(t, owner(), { name: 'Wide Token', symbol: 'WIDE', decimals: 40 })
    const res = await add({ symbol: 'WIDE', name: 'Wide Token', contractAddress: wide })
    expectError(res, 422, 'TOKEN_DECIMALS_UNSUPPORTED')
    expect(res.json().message).toMatch(/40 decimals/)
    await expectNothingAdded()
  })

  it('answers 409 for a symbol, reference or contract of a coin already (the native coin too)', async () => {
    const usdc = t.app.services.chain.coin('usdc').contractAddress!
    const dup = (body: Record<string, unknown>) => add({ name: 'Again', contractAddress: gold, ...body })
    expectError(await dup({ symbol: 'usdc' }), 409, 'COIN_EXISTS')
    expectError(await dup({ symbol: 'AVAX' }), 409, 'COIN_EXISTS')
    expectError(await dup({ symbol: 'GLD', reference: 'avax' }), 409, 'COIN_EXISTS')
    const sameContract = await add({ symbol: 'USDX', name: 'USD again', contractAddress: usdc })
    expectError(sameContract, 409, 'COIN_EXISTS')
    expect(sameContract.json().message).toMatch(/"usdc" has the contract/)
    // the same contract in lower case is the same contract
    expectError(
      await add({ symbol: 'USDX', name: 'USD again', contractAddress: usdc.toLowerCase() }),
      409,
      'COIN_EXISTS',
    )
    await expectNothingAdded()
  })

  it('answers 422 for an active coin without a USD rate when no price feed is configured', async () => {
    const res = await add({ symbol: 'GLD', name: 'Gold Token', contractAddress: gold, active: true })
    expectError(res, 422, 'COIN_RATE_REQUIRED')
    expect(res.json().message).toMatch(/without a USD rate/)
    await expectNothingAdded()
  })
})

describe('adding a coin at run time: the coin works without a restart', () => {
  let user: TestUser
  let address: Address

  it('adds the token, audited, with the decimals its contract gives', async () => {
    const coin = expectOk(
      await add({
        symbol: 'GLD',
        name: 'Gold Token',
        contractAddress: gold.toLowerCase(),
        icon: 'https://example.com/gld.png',
        rate: '3.5',
        active: true,
      }),
    )
    expect(coin).toMatchObject({
      reference: 'gld',
      symbol: 'GLD',
      name: 'Gold Token',
      decimals: 8,
      isToken: true,
      contractAddress: gold,
      active: true,
      configuredActive: true,
      usdRate: '3.5',
      configuredUsdRate: null,
      rateSet: true,
      halted: false,
      addedBy: admin.id,
    })
    expect(coin.addedAt).toEqual(expect.any(String))
    const [audit] = await auditRows(t, 'coin.add')
    expect(audit).toMatchObject({ actorId: admin.id, targetType: 'coin', targetId: 'gld', reason })
    expect(audit!.details).toMatchObject({
      contractAddress: gold,
      decimals: 8,
      chainId: 31337,
      usdRate: '3.5',
    })

    const listed = expectOk(await t.req({ method: 'GET', url: '/v1/admin/coins', token: admin.token }))
    expect(refs(listed)).toEqual(['avax', 'usdc', 'gld'])
    const paymentCoins = expectOk(
      await t.req({ method: 'GET', url: '/v1/payment/coins', token: admin.token }),
    )
    expect(paymentCoins.find((c: { reference: string }) => c.reference === 'gld')).toMatchObject({
      symbol: 'GLD',
      contractAddress: gold,
      decimal: '8',
      isToken: true,
      rpcChainId: '31337',
      active: true,
      order: 3,
      icon: 'https://example.com/gld.png',
    })
    const rates = expectOk(
      await t.req({ method: 'GET', url: '/v1/transaction/exchange', token: admin.token }),
    )
    expect(rates.gld).toBe(3.5)
    // the same contract cannot be added a second time
    expectError(await add({ symbol: 'GOLD', name: 'Gold', contractAddress: gold }), 409, 'COIN_EXISTS')
  })

  it("credits a deposit of it to a user's custodial address and shows it in the wallet", async () => {
    user = await createUser(t)
    address = await walletAddress(t, user)
    await mint(t, owner(), gold, owner().address, 100n * GLD)
    await payToken(t, owner(), gold, address, 12n * GLD + GLD / 4n)
    await t.app.services.settlement.watcher.scanNow()
    expect(await balanceOf(t, user.id, 'gld')).toBe(12n * GLD + GLD / 4n)
    const wallet = expectOk(await t.req({ method: 'GET', url: '/v1/wallet', token: user.token }))
    expect(wallet.wallets.find((w: { id: string }) => w.id === 'gld')).toMatchObject({
      amount: '12.250000',
      usdValue: 42.88,
      coin: 'GLD',
      icon: 'https://example.com/gld.png',
    })
    const one = expectOk(await t.req({ method: 'GET', url: '/v1/wallet/coin/gld', token: user.token }))
    expect(one).toMatchObject({ coin: 'GLD', amount: 12.25 })
    const txs = expectOk(await t.req({ method: 'GET', url: '/v1/transaction', token: user.token }))
    expect(txs.transactions[0]).toMatchObject({
      type: 'deposit',
      currency: 'gld',
      amount: 12.25,
      rate: '3.5',
    })
  })

  it('sends a withdrawal of it on chain, and the ledger agrees with the chain', async () => {
    const to = freshAddress()
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: user.token,
      payload: { amount: 2.5, coin: 'gld', address: to, password: user.password },
    })
    expect(res.statusCode, res.body).toBe(200)
    await settleAll(t)
    expect(await t.app.services.chain.balanceOf(to, 'gld')).toBe(2n * GLD + GLD / 2n)
    const list = expectOk(await t.req({ method: 'GET', url: '/v1/withdrawals/', token: user.token }))
    expect(list.data[0]).toMatchObject({
      coin: 'gld',
      amount: 2.5,
      fee: 0.1,
      usdRate: 3.5,
      status: 'completed',
    })
    // amount and the 0.1 fee out of the wallet
    expect(await balanceOf(t, user.id, 'gld')).toBe(12n * GLD + GLD / 4n - 2n * GLD - GLD / 2n - GLD / 10n)
    await expectConsistent(t)
    const recon = await t.app.services.settlement.reconciliation.runNow()
    expect(recon.status).toBe('ok')
    expect(recon.coins.map((c: { coin: string }) => c.coin)).toContain('gld')
  })

  it('reaches a second app instance on the same database: it lists, credits and sends the coin', async () => {
    let seen: string[] = []
    for (let i = 0; i < 100 && !seen.includes('gld'); i++) {
      seen = await publicCoins(second.app)
      if (!seen.includes('gld')) await new Promise((r) => setTimeout(r, 50))
    }
    expect(seen).toContain('gld')
    const s2 = second.app.services
    expect(s2.chain.kind).toBe('rpc')
    expect(s2.chain.coin('gld').contractAddress).toBe(gold)

    // Its deposit watcher credits the token, and its sender withdraws it.
    const other = await createUser(t)
    const at = await walletAddress(t, other)
    await payToken(t, owner(), gold, at, 5n * GLD)
    await s2.settlement.watcher.scanNow()
    expect(await balanceOf(t, other.id, 'gld')).toBe(5n * GLD)
    const wallet = await second.app.inject({
      method: 'GET',
      url: '/v1/wallet',
      headers: { authorization: `Bearer ${other.token}` },
    })
    expect(wallet.statusCode, wallet.body).toBe(200)
    expect(wallet.json().data.wallets.find((w: { id: string }) => w.id === 'gld').amount).toBe('5.000000')
    const to = freshAddress()
    const res = await second.app.inject({
      method: 'POST',
      url: '/v1/withdrawals/',
      headers: { authorization: `Bearer ${other.token}` },
      payload: { amount: 1, coin: 'gld', address: to, password: other.password },
    })
    expect(res.statusCode, res.body).toBe(200)
    for (let i = 0; i < 60 && (await t.app.services.chain.balanceOf(to, 'gld')) === 0n; i++) {
      await s2.jobs.runUntilIdle()
      t.clock.advance(60_000)
    }
    expect(await t.app.services.chain.balanceOf(to, 'gld')).toBe(GLD)
    await settleAll(t)
    await expectConsistent(t)
  })
})

describe('adding a coin at run time: inactive at first, and the watcher never misses it', () => {
  it('starts inactive: not listed, no wallet view; activating needs a USD rate first', async () => {
    const silver = await deployToken(t, owner(), { name: 'Silver Token', symbol: 'SLV', decimals: 6 })
    const coin = expectOk(
      await add({ symbol: 'SLV', name: 'Silver Token', contractAddress: silver, decimals: 6 }),
    )
    expect(coin).toMatchObject({ reference: 'slv', active: false, configuredActive: false, usdRate: null })
    expect(await publicCoins()).not.toContain('slv')
    const user = await createUser(t)
    expectError(
      await t.req({ method: 'GET', url: '/v1/wallet/coin/slv', token: user.token }),
      400,
      'VALIDATION_ERROR',
    )
    const act = (path: string, body: Record<string, unknown> = {}) =>
      t.req({
        method: 'POST',
        url: `/v1/admin/coins/slv/${path}`,
        token: admin.token,
        payload: { reason, ...body },
      })
    expectError(await act('activate'), 422, 'COIN_RATE_REQUIRED')
    expectOk(await act('rate', { usdRate: '0.8' }))
    expect(expectOk(await act('activate')).active).toBe(true)
    // an active coin whose only rate is the operator's keeps it
    expectError(await act('rate', { usdRate: null }), 422, 'COIN_RATE_REQUIRED')
    expect(await publicCoins()).toContain('slv')
    const wallet = expectOk(await t.req({ method: 'GET', url: '/v1/wallet', token: user.token }))
    expect(wallet.wallets.find((w: { id: string }) => w.id === 'slv')).toMatchObject({ amount: '0.000000' })
  })

  it('credits a coin another process added before this one heard of it: the range is read again with it', async () => {
    const copper = await deployToken(t, owner(), { name: 'Copper Token', symbol: 'CPR', decimals: 4 })
    const user = await createUser(t)
    const address = await walletAddress(t, user)
    // Written as another process's addition whose notification has not arrived here (none sent).
    await t.database.db
      .insertInto('coins')
      .values({
        id: '6b048370bce238a5cbe0ffff',
        name: 'Copper Token',
        symbol: 'CPR',
        reference: 'cpr',
        contractAddress: copper,
        decimal: 4,
        isToken: true,
        rpcChainId: '31337',
        active: false,
        displayOrder: 9,
        usdRate: '0',
        addedBy: admin.id,
        createdAt: new Date(),
        updatedAt: new Date(),
      })
      .execute()
    expect(() => t.app.services.chain.coin('cpr')).toThrow()
    await mint(t, owner(), copper, address, 70_000n)
    await t.app.services.settlement.watcher.scanNow()
    expect(t.app.services.chain.coin('cpr').decimals).toBe(4)
    expect(await balanceOf(t, user.id, 'cpr')).toBe(70_000n)
    await expectConsistent(t)
    // (no notification was involved)
    const { rows } = await sql<{
      n: number
    }>`select count(*)::int as n from coins where added_by is not null`.execute(t.database.db)
    expect(rows[0]!.n).toBe(3)
  })

  it('takes one of two additions of one contract made at the same time, once', async () => {
    const tin = await deployToken(t, owner(), { name: 'Tin Token', symbol: 'TIN', decimals: 2 })
    const body = (symbol: string) => ({ symbol, name: 'Tin Token', contractAddress: tin })
    const answers = await Promise.all([add(body('TIN')), add(body('TINB'))])
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409])
    const rows = await t.database.db
      .selectFrom('coins')
      .select('reference')
      .where('contractAddress', '=', tin)
      .execute()
    expect(rows).toHaveLength(1)
    expect((await auditRows(t, 'coin.add')).filter((a) => a.targetId.startsWith('tin'))).toHaveLength(1)
  })

  it('is there from the start in a process started after it was added', async () => {
    const later = await openSecondApp(t, adminEnv(run))
    try {
      expect(later.app.services.chain.coin('gld').contractAddress).toBe(gold)
      expect(await publicCoins(later.app)).toEqual(['avax', 'usdc', 'gld', 'slv'])
      // its start-up, which writes the configuration's coins, retired none of the added ones
      expect(await publicCoins()).toEqual(['avax', 'usdc', 'gld', 'slv'])
    } finally {
      await later.close()
    }
  })
})
