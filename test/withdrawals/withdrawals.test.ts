// Withdrawals on the dev chain: they land exactly once with the right amount, never overdraw under
// contention, fail cleanly (chain down, a contract that refuses value) with the hold released, and
// the list shows the caller's own withdrawals in the spec's shape.
import solc from 'solc'
import { type Address, createWalletClient, custom, getAddress, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { refuseSends } from '../helpers/refuser.ts'
import { AVAX, balanceOf, expectConsistent, freshAddress, fundUser, settleAll, USDC } from './helpers.ts'

let t: TestApp
const FEE = AVAX / 1000n
const USDC_FEE = USDC / 10n

beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

function withdraw(user: TestUser, payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  return t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token: user.token,
    payload: { password: user.password, ...payload },
    headers,
  })
}

async function list(user: TestUser, query = '') {
  const res = await t.req({ method: 'GET', url: `/v1/withdrawals/${query}`, token: user.token })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as {
    pages: number
    page: number
    limit: number
    total: number
    data: Record<string, any>[]
  }
}

describe('POST /v1/withdrawals/ on the dev chain', () => {
  it('sends a native withdrawal exactly once with the right amount', async () => {
    const user = await createUser(t)
    await fundUser(t, 0, user, 'avax', 2n * AVAX)
    const to = freshAddress()
    const res = await withdraw(user, { amount: 0.25, coin: 'avax', address: to })
    expect(res.statusCode, res.body).toBe(200)
    const { withdrawalId } = res.json().data
    expect(withdrawalId).toMatch(/^[0-9a-f]{24}$/)
    expect(res.json()).toEqual({ status: 'success', message: expect.any(String), data: { withdrawalId } })

    // Held at once: amount + fee left the wallet, the withdrawal is pending.
    expect(await balanceOf(t, user.id, 'avax')).toBe(2n * AVAX - AVAX / 4n - FEE)
    const pending = await list(user)
    expect(pending.data[0]).toMatchObject({ _id: withdrawalId, status: 'pending', retryCount: 0, errMsg: [] })

    await settleAll(t)
    expect(await t.app.services.chain.balanceOf(to, 'avax')).toBe(AVAX / 4n)
    const done = await list(user)
    expect(done.total).toBe(1)
    const w = done.data[0]!
    expect(w).toEqual({
      _id: withdrawalId,
      owner: user.id,
      coin: 'avax',
      address: getAddress(to),
      amount: 0.25,
      fee: 0.001,
      usdValue: expect.any(Number),
      usdRate: expect.any(Number),
      status: 'completed',
      retryCount: 0,
      errMsg: [],
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
      __v: expect.any(Number),
    })
    expect(w.usdValue).toBeCloseTo(0.25 * w.usdRate, 2)
    expect(await balanceOf(t, user.id, 'avax')).toBe(2n * AVAX - AVAX / 4n - FEE)

    // One transaction on chain from the user's address to the recipient.
    const receipt = await t.app.services.chain.getReceipt(w.txHash)
    expect(receipt?.status).toBe('success')

    // The withdrawal transaction record: completed, method sent, the receipt in responseData.
    const txs = await t.req({ method: 'GET', url: '/v1/transaction?type=withdrawal', token: user.token })
    const records = txs.json().data.transactions as Record<string, any>[]
    const sent = records.find((r) => r.method === 'sent')!
    expect(sent).toMatchObject({ status: 'completed', amount: 0.25, type: 'withdrawal', currency: 'avax' })
    expect(JSON.parse(sent.responseData)).toMatchObject({ transactionHash: w.txHash, status: 'success' })
    const fee = records.find((r) => r.method === 'fee')!
    expect(fee).toMatchObject({ status: 'completed', amount: 0.001, isFee: true })

    // Mailed once.
    const mails = await t.database.db
      .selectFrom('mails')
      .select(['subject', 'kind'])
      .where('toAddress', '=', user.email)
      .where('kind', '=', 'withdrawal_completed')
      .execute()
    expect(mails).toHaveLength(1)

    // Running everything again sends nothing more.
    t.clock.advance(3_600_000)
    await t.drain()
    expect(await t.app.services.chain.balanceOf(to, 'avax')).toBe(AVAX / 4n)
    await expectConsistent(t)
  })

  it('sends a token withdrawal, topping up gas from the gas wallet', async () => {
    const user = await createUser(t)
    await fundUser(t, 1, user, 'usdc', 50n * USDC)
    const to = freshAddress()
    const res = await withdraw(user, { amount: 12.5, coin: 'usdc', address: to })
    expect(res.statusCode, res.body).toBe(200)
    await settleAll(t)
    expect(await t.app.services.chain.balanceOf(to, 'usdc')).toBe(12_500_000n)
    expect(await balanceOf(t, user.id, 'usdc')).toBe(50n * USDC - 12_500_000n - USDC_FEE)
    // The user's native balance paid no gas.
    expect(await balanceOf(t, user.id, 'avax')).toBe(0n)
    const [w] = (await list(user)).data
    expect(w).toMatchObject({ status: 'completed', amount: 12.5, coin: 'usdc', fee: 0.1 })
    await expectConsistent(t)
  })

  it('never overdraws under 20 concurrent withdrawals; accepted ones land with distinct nonces', async () => {
    const user = await createUser(t)
    await fundUser(t, 2, user, 'avax', 1n * AVAX)
    const to = freshAddress()
    // Each takes 0.1 + 0.001: at most 9 fit in 1 AVAX.
    const results = await Promise.all(
      Array.from({ length: 20 }, () => withdraw(user, { amount: 0.1, coin: 'avax', address: to })),
    )
    const accepted = results.filter((r) => r.statusCode === 200)
    const refused = results.filter((r) => r.statusCode !== 200)
    expect(accepted.length).toBe(9)
    for (const r of refused) {
      expect(r.statusCode, r.body).toBe(422)
      expect(r.json().data.code).toBe('INSUFFICIENT_BALANCE')
    }
    expect(await balanceOf(t, user.id, 'avax')).toBe(AVAX - 9n * (AVAX / 10n + FEE))
    await settleAll(t)
    expect(await t.app.services.chain.balanceOf(to, 'avax')).toBe(9n * (AVAX / 10n))
    const rows = await t.database.db
      .selectFrom('outgoingTransfers')
      .select(['nonce', 'status', 'txHash'])
      .where('purpose', '=', 'withdrawal')
      .where('toAddress', '=', to.toLowerCase())
      .execute()
    expect(rows).toHaveLength(9)
    expect(rows.every((r) => r.status === 'completed')).toBe(true)
    expect(new Set(rows.map((r) => r.nonce)).size).toBe(9)
    const { data } = await list(user, '?limit=100')
    expect(data.filter((w) => w.status === 'completed')).toHaveLength(9)
    await expectConsistent(t)
  })

  it('waits while the chain is unreachable, each try recorded but not counted, then lands', async () => {
    const user = await createUser(t)
    await fundUser(t, 3, user, 'avax', 1n * AVAX)
    const to = freshAddress()
    const devnet = t.app.services.chain.devnet!
    devnet.setDown(true)
    let id: string
    try {
      const res = await withdraw(user, { amount: 0.5, coin: 'avax', address: to })
      expect(res.statusCode, res.body).toBe(200)
      id = res.json().data.withdrawalId
      await t.drain()
      const w = (await list(user)).data[0]!
      expect(w).toMatchObject({ _id: id, status: 'processing', retryCount: 1 })
      expect(w.errMsg[0]).toMatch(/unavailable/i)
      // an hour of outage: far more tries than the limit of failures, and still waiting
      for (let i = 0; i < 60; i++) {
        t.clock.advance(60_000)
        await t.drain()
      }
      expect((await list(user)).data[0]).toMatchObject({ _id: id, status: 'processing' })
      const [transfer] = await t.database.db
        .selectFrom('outgoingTransfers')
        .select(['failures', 'errors', 'status'])
        .where('toAddress', '=', to.toLowerCase())
        .execute()
      expect(transfer).toMatchObject({ status: 'queued', failures: 0 })
      const tries = transfer!.errors!.length
      expect(tries).toBeGreaterThan(5)
      // the withdrawal heard of the 1st, 2nd, 4th, 8th ... try only, not of one a minute
      const heard = (await list(user)).data[0]!
      expect(heard.retryCount).toBe(Math.floor(Math.log2(tries)) + 1)
      expect(heard.errMsg).toHaveLength(heard.retryCount)
    } finally {
      devnet.setDown(false)
    }
    await settleAll(t)
    expect((await list(user)).data[0]).toMatchObject({ _id: id, status: 'completed' })
    expect(await t.app.services.chain.balanceOf(to, 'avax')).toBe(AVAX / 2n)
    expect(await balanceOf(t, user.id, 'avax')).toBe(AVAX / 2n - FEE)
    await expectConsistent(t)
  })

  it('fails for good when the node refuses it on every try, and gives the balance back', async () => {
    const user = await createUser(t)
    await fundUser(t, 3, user, 'avax', 1n * AVAX)
    const to = freshAddress()
    const accept = refuseSends(t)
    let id: string
    try {
      const res = await withdraw(user, { amount: 0.5, coin: 'avax', address: to })
      expect(res.statusCode, res.body).toBe(200)
      id = res.json().data.withdrawalId
      expect(await balanceOf(t, user.id, 'avax')).toBe(AVAX / 2n - FEE)
      await t.drain()
      let w = (await list(user)).data[0]!
      expect(w).toMatchObject({ _id: id, status: 'processing', retryCount: 1 })
      expect(w.errMsg).toHaveLength(1)
      expect(w.errMsg[0]).toMatch(/eth_feeHistory/)
      await settleAll(t)
      w = (await list(user)).data[0]!
      expect(w).toMatchObject({ _id: id, status: 'failed', retryCount: 5 })
      expect(w.errMsg).toHaveLength(5)
    } finally {
      accept()
    }
    expect(await balanceOf(t, user.id, 'avax')).toBe(AVAX)
    expect(await t.app.services.chain.balanceOf(to, 'avax')).toBe(0n)
    const txs = await t.req({ method: 'GET', url: '/v1/transaction?status=failed', token: user.token })
    const [rec] = txs.json().data.transactions as Record<string, any>[]
    expect(rec).toMatchObject({ type: 'withdrawal', method: 'sent', status: 'failed' })
    const error = JSON.parse(rec!.responseData)
    expect(error).toMatchObject({ error: true, status: 422, message: expect.any(String) })
    expect(error.data).toMatchObject({ code: 'REJECTED', attempts: 5 })
    const mails = await t.database.db
      .selectFrom('mails')
      .select('kind')
      .where('toAddress', '=', user.email)
      .where('kind', '=', 'withdrawal_failed')
      .execute()
    expect(mails).toHaveLength(1)
    await expectConsistent(t)
  })

  it('fails a withdrawal to a contract that refuses value and gives the balance back', async () => {
    const user = await createUser(t)
    await fundUser(t, 4, user, 'avax', 1n * AVAX)
    const contract = await deployRefuser()
    const res = await withdraw(user, { amount: 0.2, coin: 'avax', address: contract })
    expect(res.statusCode, res.body).toBe(200)
    await settleAll(t)
    const w = (await list(user)).data[0]!
    expect(w.status).toBe('failed')
    expect(w.retryCount).toBeGreaterThan(0)
    expect(w.errMsg.join(' ')).toMatch(/refuses/)
    expect(await balanceOf(t, user.id, 'avax')).toBe(AVAX)
    expect(await t.app.services.chain.balanceOf(contract, 'avax')).toBe(0n)
    await expectConsistent(t)
  })
})

const REFUSER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Refuser {
  receive() external payable { revert("no thanks"); }
}`

async function deployRefuser(): Promise<Address> {
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'Refuser.sol': { content: REFUSER } },
        settings: { outputSelection: { '*': { '*': ['evm.bytecode.object'] } } },
      }),
    ),
  )
  const errs = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errs.length) throw new Error(JSON.stringify(errs))
  const chain = t.app.services.chain
  const payer = chain.devnet!.accounts[5]!
  const deployer = createWalletClient({
    account: privateKeyToAccount(payer.privateKey as Hex),
    chain: chain.chain,
    transport: custom({ request: (args) => chain.client.request(args as never) }),
  })
  const hash = await deployer.deployContract({
    abi: [],
    bytecode: `0x${out.contracts['Refuser.sol'].Refuser.evm.bytecode.object}`,
  })
  const receipt = await chain.client.waitForTransactionReceipt({ hash })
  return getAddress(receipt.contractAddress!)
}
