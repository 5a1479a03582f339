// A chain as it runs in production, on the real devnet: blocks every 300 ms (automine off, so
// transactions wait in the mempool for the next block), CONFIRMATIONS=3, and a provider failing a
// fifth of all calls (HTTP 500 and 429, internal errors, hangs past the request time limit; a
// lagging node's "header not found" is left to rpc-outage.test.ts). Every deposit is credited
// once, every withdrawal lands once.
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, expect, it } from 'vitest'
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
  USDC,
  until,
  withdraw,
} from './faults-support.ts'

let w: ProxiedApp
beforeAll(async () => {
  w = await openProxiedApp({ seed: 5, env: { EVM_RPC_TIMEOUT_MS: '500', CONFIRMATIONS: '3' } })
})
afterAll(() => w?.close())

it('credits every deposit once and lands every withdrawal once', { timeout: 300_000 }, async () => {
  const outsider = w.node.devnet.accounts[0]!
  await w.node.devnet.fund(outsider.address, 'usdc', 1_000n * USDC)
  const users: TestUser[] = []
  for (let i = 0; i < 3; i++) users.push(await createUser(w.t))
  const addresses = await Promise.all(users.map((u) => addressOf(w, u)))
  await w.node.devnet.setAutomine(false)
  await w.node.devnet.setIntervalMining(300)
  try {
    w.proxy.add({
      method: '*',
      rate: 0.2,
      fault: [faults.http500, faults.http429, faults.rpcError(-32603, 'internal error'), faults.hang(700)],
    })
    for (const [i, a] of addresses.entries()) {
      await pay(w, outsider, a, 'avax', AVAX + BigInt(i))
      await pay(w, outsider, a, 'usdc', 10n * USDC + BigInt(i))
    }
    await until(
      w,
      async () => {
        for (const [i, u] of users.entries()) {
          if ((await balanceOf(w, u.id, 'avax')) !== AVAX + BigInt(i)) return false
          if ((await balanceOf(w, u.id, 'usdc')) !== 10n * USDC + BigInt(i)) return false
        }
        return true
      },
      400,
    )
    const targets = users.map(() => privateKeyToAddress(generatePrivateKey()))
    for (const [i, u] of users.entries()) {
      await withdraw(w, u, 'avax', 0.25, targets[i]!)
      await withdraw(w, u, 'usdc', 2, targets[i]!)
    }
    await until(w, async () => (await openTransfers(w)).length === 0, 400)
    for (const t of targets) {
      expect(await w.node.balanceOf(t, 'avax')).toBe(AVAX / 4n)
      expect(await w.node.balanceOf(t, 'usdc')).toBe(2n * USDC)
    }
    for (const u of users) {
      expect(await depositsOf(w, u.id, 'usdc')).toHaveLength(1)
      expect(await depositsOf(w, u.id, 'avax')).toHaveLength(1)
    }
    await expectSettled(w)
  } finally {
    await w.node.devnet.setIntervalMining(0)
  }
})
