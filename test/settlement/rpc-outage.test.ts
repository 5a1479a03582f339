// A withdrawal sent while the provider cannot help for a while: a lagging node answering "header
// not found" to every eth_estimateGas, or a provider answering 503 to it, for ten minutes; then
// the provider recovers. An exchange keeps such a withdrawal queued and sends it once the chain
// can be reached: it lands once, late.
//
// KNOWN DEFECT, recorded with `it.fails` so that the suite stays green until it is mended (then
// drop `.fails`): the sender counts every failed attempt, a provider's transient errors included,
// against `maxFailures` (5, with backoff 2, 4, 8, 16 s), so about 30 s of such errors fail the
// withdrawal for good (its hold is voided: nothing is lost, but it is never sent); and a
// non-revert error of eth_estimateGas ("header not found", -32000) is reported as "the token
// transfer would revert".
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
    it.fails(`${label}: waits, then lands once`, { timeout: 120_000 }, async () => {
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
    })
})
