// Deposits and withdrawals through a provider that fails a fifth of all calls (HTTP 500 and 429,
// JSON-RPC errors, hangs past the request time limit), on the real devnet behind the
// fault-injecting proxy: every deposit is credited once, every withdrawal lands once, and with the
// faults gone the ledger equals the chain at every address. The app gives up on a request after
// EVM_RPC_TIMEOUT_MS (small here); a hung request still reaches the node when the hang ends, as a
// broadcast stuck in a slow provider does.
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { openProxiedApp, type ProxiedApp } from '../helpers/proxied-app.ts'
import { faults } from '../helpers/rpc-proxy.ts'
import {
  AVAX,
  addressOf,
  balanceOf,
  depositsOf,
  expectSettled,
  openTransfers,
  pay,
  round,
  USDC,
  until,
  withdraw,
} from './faults-support.ts'

let w: ProxiedApp
const TIME_LIMIT = 500
beforeAll(async () => {
  w = await openProxiedApp({ seed: 20, env: { EVM_RPC_TIMEOUT_MS: String(TIME_LIMIT) } })
})
afterAll(() => w?.close())

/**
 * A fifth of every call fails, in the ways providers fail that a request's retries see through. A
 * lagging node's "header not found" (-32000, not retried) is left to rpc-outage.test.ts: enough of
 * them in a row fail a withdrawal for good (a known defect, recorded there).
 */
const FIFTH_FAILING = {
  method: '*',
  rate: 0.2,
  fault: [
    faults.http500,
    faults.http429,
    faults.rpcError(-32603, 'internal error'),
    faults.rpcError(-32005, 'request limit exceeded'),
    faults.hang(TIME_LIMIT + 200),
  ],
}

describe('with 20 % of RPC calls failing', () => {
  it('credits every deposit once and lands every withdrawal once', { timeout: 180_000 }, async () => {
    const outsider = w.node.devnet.accounts[0]!
    await w.node.devnet.fund(outsider.address, 'usdc', 1_000n * USDC)
    const users: TestUser[] = []
    for (let i = 0; i < 4; i++) users.push(await createUser(w.t))
    const addresses = await Promise.all(users.map((u) => addressOf(w, u)))

    w.proxy.add(FIFTH_FAILING)
    for (const [i, address] of addresses.entries()) {
      await pay(w, outsider, address, 'avax', AVAX + BigInt(i))
      await pay(w, outsider, address, 'usdc', 10n * USDC + BigInt(i))
    }
    const credited = async () => {
      for (const [i, u] of users.entries()) {
        if ((await balanceOf(w, u.id, 'avax')) !== AVAX + BigInt(i)) return false
        if ((await balanceOf(w, u.id, 'usdc')) !== 10n * USDC + BigInt(i)) return false
      }
      return true
    }
    await until(w, credited)
    // more passes under the same faults change nothing
    await until(w, async () => false, 5).catch(() => {})
    expect(await credited()).toBe(true)
    for (const u of users) {
      expect(await depositsOf(w, u.id, 'avax')).toHaveLength(1)
      expect(await depositsOf(w, u.id, 'usdc')).toHaveLength(1)
    }

    // each user withdraws a native and a token amount to a fresh outside address
    const targets = users.map(() => privateKeyToAddress(generatePrivateKey()))
    for (const [i, u] of users.entries()) {
      await withdraw(w, u, 'avax', 0.25, targets[i]!)
      await withdraw(w, u, 'usdc', 2, targets[i]!)
    }
    await until(w, async () => (await openTransfers(w)).length === 0, 120)
    for (const target of targets) {
      expect(await w.node.balanceOf(target, 'avax')).toBe(AVAX / 4n)
      expect(await w.node.balanceOf(target, 'usdc')).toBe(2n * USDC)
    }
    const statuses = await w.t.database.db.selectFrom('withdrawals').select('status').execute()
    expect(statuses.map((s) => s.status)).toEqual(Array(8).fill('completed'))
    // the faults were met, on reads and on broadcasts alike
    expect(w.proxy.faulted()).toBeGreaterThan(20)
    expect(w.proxy.faulted('eth_sendRawTransaction') + w.proxy.faulted('eth_getLogs')).toBeGreaterThan(0)

    await expectSettled(w)
    for (const [i, u] of users.entries()) {
      expect(await balanceOf(w, u.id, 'avax')).toBe(AVAX + BigInt(i) - AVAX / 4n - AVAX / 1000n)
      expect(await balanceOf(w, u.id, 'usdc')).toBe(10n * USDC + BigInt(i) - 2n * USDC - USDC / 10n)
    }
  })

  it('a broadcast that hangs past the time limit, delivered later, lands once; a read that hangs is asked again', {
    timeout: 120_000,
  }, async () => {
    const outsider = w.node.devnet.accounts[1]!
    const user = await createUser(w.t)
    const address = await addressOf(w, user)
    w.proxy.add({ method: ['eth_getLogs', 'eth_getBlockByNumber'], fault: faults.hang(), times: 2 })
    await pay(w, outsider, address, 'avax', 2n * AVAX)
    await until(w, async () => (await balanceOf(w, user.id, 'avax')) === 2n * AVAX)

    const target = privateKeyToAddress(generatePrivateKey())
    const sentBefore = w.proxy.calls('eth_sendRawTransaction')
    w.proxy.add({ method: 'eth_sendRawTransaction', fault: faults.hang(), times: 1 })
    await withdraw(w, user, 'avax', 1, target)
    await until(w, async () => (await openTransfers(w)).length === 0)
    expect(w.proxy.calls('eth_sendRawTransaction') - sentBefore).toBeGreaterThanOrEqual(2)
    // the hung broadcast reaches the node now, after its copy was mined: nothing more is paid
    w.proxy.release()
    await w.node.devnet.mine(1)
    for (let i = 0; i < 3; i++) await round(w)
    expect(await w.node.balanceOf(target, 'avax')).toBe(AVAX)
    expect(await balanceOf(w, user.id, 'avax')).toBe(AVAX - AVAX / 1000n)
    await expectSettled(w)
  })
})
