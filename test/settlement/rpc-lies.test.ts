// A provider that lies, on the real devnet behind the fault-injecting proxy: heads that are stale
// or go backwards and receipts answered null change nothing (no deposit credited twice or lost, no
// withdrawal sent twice, no reorganisation alarm), and a broadcast the provider swallowed (hash
// answered, transaction never forwarded) is broadcast again and lands once.
import { type Hex, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../helpers/factories.ts'
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
let outsider: { address: Hex; privateKey: Hex }
beforeAll(async () => {
  w = await openProxiedApp()
  outsider = w.node.devnet.accounts[0]!
  await w.node.devnet.fund(outsider.address, 'usdc', 1_000n * USDC)
})
afterAll(() => w?.close())

const fresh = () => privateKeyToAddress(generatePrivateKey())

/** a user with `usdc` and `avax` base units credited by the watcher (no faults meanwhile) */
async function fundedUser(usdc: bigint, avax = 0n) {
  const user = await createUser(w.t)
  const address = await addressOf(w, user)
  if (usdc > 0n) await pay(w, outsider, address, 'usdc', usdc)
  if (avax > 0n) await pay(w, outsider, address, 'avax', avax)
  await until(
    w,
    async () =>
      (await balanceOf(w, user.id, 'usdc')) === usdc && (await balanceOf(w, user.id, 'avax')) === avax,
  )
  return { user, address }
}

async function reorgFindings() {
  const halts = await w.t.app.services.settlement.halts.list()
  const audits = await w.t.database.db
    .selectFrom('auditLog')
    .select('action')
    .where('action', '=', 'chain.reorg')
    .execute()
  return { halts, reorgAudits: audits.length }
}

describe('a provider that lies', () => {
  it('stale and backwards heads credit nothing twice, lose nothing and raise no reorganisation', {
    timeout: 120_000,
  }, async () => {
    const { user, address } = await fundedUser(1n * USDC)
    const frozen = await w.node.blockNumber()
    let n = 0
    // answers in turn: the real head, four blocks back, the head of when the lie began
    const drop = w.proxy.add({
      method: 'eth_blockNumber',
      fault: faults.lie((real) => {
        const head = BigInt(real as string)
        const pick = n++ % 3
        return toHex(pick === 0 ? head : pick === 1 ? head - 4n : frozen)
      }),
    })
    try {
      await pay(w, outsider, address, 'usdc', 2n * USDC)
      await w.node.devnet.mine(2)
      for (let i = 0; i < 10; i++) await round(w)
    } finally {
      drop()
    }
    await until(w, async () => (await balanceOf(w, user.id, 'usdc')) === 3n * USDC)
    for (let i = 0; i < 3; i++) await round(w)
    expect(await balanceOf(w, user.id, 'usdc')).toBe(3n * USDC)
    expect((await depositsOf(w, user.id, 'usdc')).map((d) => d.amount).sort()).toEqual(['1000000', '2000000'])
    expect(await reorgFindings()).toEqual({ halts: [], reorgAudits: 0 })
    expect(w.proxy.faulted('eth_blockNumber')).toBeGreaterThan(0)
  })

  it('receipts answered null delay a withdrawal and a deposit, and send or credit nothing twice', {
    timeout: 120_000,
  }, async () => {
    const { user, address } = await fundedUser(5n * USDC, AVAX)
    const drop = w.proxy.add({ method: 'eth_getTransactionReceipt', fault: faults.lie(() => null) })
    const target = fresh()
    try {
      await withdraw(w, user, 'avax', 0.5, target)
      await pay(w, outsider, address, 'usdc', 3n * USDC)
      for (let i = 0; i < 15; i++) await round(w, 10_000)
      // what was mined meanwhile is hidden: nothing is sent a second time, nothing is given up
      expect(await w.node.balanceOf(target, 'avax')).toBeLessThanOrEqual(AVAX / 2n)
      const statuses = await w.t.database.db.selectFrom('outgoingTransfers').select('status').execute()
      expect(statuses.map((s) => s.status)).not.toContain('failed')
    } finally {
      drop()
    }
    await until(w, async () => (await openTransfers(w)).length === 0)
    await until(w, async () => (await balanceOf(w, user.id, 'usdc')) === 8n * USDC)
    expect(await w.node.balanceOf(target, 'avax')).toBe(AVAX / 2n)
    const [withdrawal] = await w.t.database.db
      .selectFrom('withdrawals')
      .select('status')
      .where('ownerId', '=', user.id)
      .execute()
    expect(withdrawal?.status).toBe('completed')
    expect(await depositsOf(w, user.id, 'usdc')).toHaveLength(2)
    expect(w.proxy.faulted('eth_getTransactionReceipt')).toBeGreaterThan(0)
    expect(await reorgFindings()).toEqual({ halts: [], reorgAudits: 0 })
  })

  it('a swallowed broadcast is broadcast again and lands once', { timeout: 120_000 }, async () => {
    const { user } = await fundedUser(5n * USDC, AVAX)
    const target = fresh()
    w.proxy.add({ method: 'eth_sendRawTransaction', fault: faults.swallow, times: 1 })
    const sentBefore = w.proxy.calls('eth_sendRawTransaction')
    await withdraw(w, user, 'usdc', 1.5, target)
    await until(w, async () => (await openTransfers(w)).length === 0)
    expect(w.proxy.swallowed).toHaveLength(1)
    expect(w.proxy.calls('eth_sendRawTransaction') - sentBefore).toBeGreaterThanOrEqual(2)
    expect(await w.node.balanceOf(target, 'usdc')).toBe(1_500_000n)
    expect(await balanceOf(w, user.id, 'usdc')).toBe(5n * USDC - 1_500_000n - USDC / 10n)
  })

  it('leaves the ledger equal to the chain at every address', async () => {
    await expectSettled(w)
  })
})
