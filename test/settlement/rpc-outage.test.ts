// Provider trouble that lasts: a withdrawal sent while a lagging node answers "header not found"
// to every eth_estimateGas, or a provider answers 503 to it, for ten minutes, then recovers (an
// exchange keeps the withdrawal queued and sends it once the chain can be reached: it lands once,
// late, each failed try recorded but none counted against the transfer's limit of failures); and
// a provider that caps eth_getLogs ranges (the watcher halves its range until the provider answers).
import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../helpers/factories.ts'
import { openProxiedApp, type ProxiedApp } from '../helpers/proxied-app.ts'
import { type Fault, faults } from '../helpers/rpc-proxy.ts'
import {
  AVAX,
  addressOf,
  balanceOf,
  openTransfers,
  pay,
  round,
  USDC,
  until,
  withdraw,
} from './faults-support.ts'

let w: ProxiedApp
let outsider: { address: Hex; privateKey: Hex }
beforeAll(async () => {
  w = await openProxiedApp({ env: { EVM_RPC_TIMEOUT_MS: '500' } })
  outsider = w.node.devnet.accounts[0]!
  await w.node.devnet.fund(outsider.address, 'usdc', 1_000n * USDC)
})
afterAll(() => w?.close())

const outages: [string, Fault][] = [
  ['a lagging node ("header not found")', faults.rpcError(-32000, 'header not found')],
  ['a provider answering 503', { kind: 'http', status: 503 }],
]

describe('a withdrawal during ten minutes of provider errors', () => {
  for (const [label, fault] of outages)
    it(`${label}: waits, then lands once`, { timeout: 120_000 }, async () => {
      const user = await createUser(w.t)
      const address = await addressOf(w, user)
      await pay(w, outsider, address, 'usdc', 5n * USDC)
      await pay(w, outsider, address, 'avax', AVAX)
      await until(w, async () => (await balanceOf(w, user.id, 'usdc')) === 5n * USDC)
      const target = privateKeyToAddress(generatePrivateKey())
      const drop = w.proxy.add({ method: 'eth_estimateGas', fault })
      try {
        await withdraw(w, user, 'usdc', 1, target)
        for (let i = 0; i < 40; i++) await round(w, 15_000)
      } finally {
        drop()
      }
      await until(w, async () => (await openTransfers(w)).length === 0)
      expect(await w.node.balanceOf(target, 'usdc')).toBe(USDC)
      const [withdrawal] = await w.t.database.db
        .selectFrom('withdrawals')
        .select('status')
        .where('ownerId', '=', user.id)
        .execute()
      expect(withdrawal?.status).toBe('completed')
      // the provider's errors were recorded as attempts (operators see them) but none counted
      const [transfer] = await w.t.database.db
        .selectFrom('outgoingTransfers')
        .select(['failures', 'errors'])
        .where('toAddress', 'ilike', target)
        .execute()
      expect(transfer?.failures).toBe(0)
      expect(transfer?.errors?.length).toBeGreaterThan(5)
      expect(transfer?.errors?.join('\n')).not.toMatch(/revert/)
    })
})

describe('a provider that caps eth_getLogs at 50 blocks a call', () => {
  it('the watcher reads in smaller ranges and credits the deposit', { timeout: 120_000 }, async () => {
    const user = await createUser(w.t)
    const address = await addressOf(w, user)
    await until(
      w,
      async () =>
        (await w.t.app.services.settlement.watcher.scanNow()).cursor === (await w.node.blockNumber()),
    )
    const drop = w.proxy.add({
      method: 'eth_getLogs',
      when: ([filter]) => {
        const f = filter as { fromBlock: Hex; toBlock: Hex }
        return BigInt(f.toBlock) - BigInt(f.fromBlock) >= 50n
      },
      fault: faults.rpcError(-32005, 'query exceeds max block range 50'),
    })
    try {
      await w.node.devnet.mine(120)
      await pay(w, outsider, address, 'usdc', 2n * USDC)
      await until(w, async () => (await balanceOf(w, user.id, 'usdc')) === 2n * USDC, 20)
    } finally {
      drop()
    }
  })
})
