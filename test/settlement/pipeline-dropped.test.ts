// A dropped transaction in the middle of an address's pipeline: the app in its production
// configuration behind the fault-injecting proxy, blocks held; the provider swallows the one
// broadcast of the middle nonce (answers its hash, never forwards it), so the nonces after it
// wait on the node behind a gap. The middle transfer's next check broadcasts its stored
// transaction again (the same bytes, the same hash): the gap closes and all land once, in order.
import { type Hex, parseTransaction } from 'viem'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createUser } from '../helpers/factories.ts'
import { openProxiedApp, type ProxiedApp } from '../helpers/proxied-app.ts'
import { faults } from '../helpers/rpc-proxy.ts'
import { freshAddress } from '../withdrawals/helpers.ts'
import {
  AVAX,
  addressOf,
  balanceOf,
  expectSettled,
  openTransfers,
  pay,
  until,
  withdraw,
} from './faults-support.ts'

let w: ProxiedApp
beforeAll(async () => {
  w = await openProxiedApp({ seed: 11 })
  // One top-up brings the gas of every send below.
  w.t.app.services.outgoing.options.topUpFactor = 100n
})
afterAll(() => w?.close())

const SENDS = 5
const MIDDLE = 2
const FEE = AVAX / 1000n

const transfers = (ids: string[]) =>
  w.t.database.db
    .selectFrom('outgoingTransfers')
    .select(['id', 'status', 'nonce', 'txHash', 'raw', 'failures'])
    .where('id', 'in', ids)
    .execute()

it('sends a swallowed middle transaction again at its next check; the nonces behind it wait, then all land once', {
  timeout: 180_000,
}, async () => {
  const { t, node, proxy } = w
  const db = t.database.db
  const user = await createUser(t)
  const address = (await addressOf(w, user)).toLowerCase()
  await pay(w, node.devnet.accounts[3]!, address, 'avax', 3n * AVAX)
  await until(w, async () => (await balanceOf(w, user.id, 'avax')) === 3n * AVAX)
  // A first withdrawal brings the address its gas.
  await withdraw(w, user, 'avax', 0.01, freshAddress())
  await until(w, async () => (await openTransfers(w)).length === 0)
  const base = await node.getNonce(address, 'latest')
  const walletBefore = await balanceOf(w, user.id, 'avax')

  const targets = Array.from({ length: SENDS }, () => freshAddress())
  const targetSet = new Set(targets.map((a) => a.toLowerCase()))
  // The provider swallows one broadcast: the first of the middle nonce.
  proxy.add({
    method: 'eth_sendRawTransaction',
    fault: faults.swallow,
    times: 1,
    when: (params) => {
      const tx = parseTransaction(params[0] as Hex)
      return tx.nonce === base + MIDDLE && !!tx.to && targetSet.has(tx.to.toLowerCase())
    },
  })
  await node.devnet.setAutomine(false)
  try {
    // One after the other (each signed and broadcast before the next is asked for), so the nonces
    // follow the order of the requests; the clock stands still, so no check comes due meanwhile.
    const withdrawalIds: string[] = []
    for (const to of targets) {
      withdrawalIds.push(await withdraw(w, user, 'avax', 0.1, to))
      await t.drain()
    }
    const ids: string[] = []
    for (const id of withdrawalIds) {
      const row = await db
        .selectFrom('withdrawals')
        .select('outgoingId')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
      ids.push(row.outgoingId!)
    }
    const before = new Map((await transfers(ids)).map((r) => [r.id, r]))
    expect(ids.map((id) => before.get(id)!.status)).toEqual(ids.map(() => 'sent'))
    expect(ids.map((id) => Number(before.get(id)!.nonce))).toEqual(ids.map((_, i) => base + i))
    const middle = before.get(ids[MIDDLE]!)!
    expect(proxy.swallowed).toEqual([middle.txHash])

    // The node never saw the middle nonce; the later ones wait behind it, unmined.
    expect(await node.client.getTransaction({ hash: middle.txHash as Hex }).catch(() => null)).toBeNull()
    const later = ids.slice(MIDDLE + 1).map((id) => before.get(id)!.txHash as Hex)
    for (const hash of later) expect(await node.client.getTransaction({ hash })).toMatchObject({ hash })
    await node.devnet.mine(1)
    expect(await node.getNonce(address, 'latest')).toBe(base + MIDDLE)
    for (const hash of later) expect(await node.getReceipt(hash)).toBeNull()

    // The next checks broadcast the stored middle transaction again; a block takes it and the
    // ones behind it.
    const completed = async () =>
      (await db.selectFrom('withdrawals').select('status').where('id', 'in', withdrawalIds).execute()).every(
        (r) => r.status === 'completed',
      )
    for (let i = 0; i < 40 && !(await completed()); i++) {
      await t.drain()
      await node.devnet.mine(1)
      t.clock.advance(2_000)
    }
    expect(await completed()).toBe(true)

    // The same transactions, landed once each in nonce order; waiting was never a failed attempt.
    const after = new Map((await transfers(ids)).map((r) => [r.id, r]))
    let lastBlock = -1n
    for (const id of ids) {
      const row = after.get(id)!
      expect(row.status).toBe('completed')
      expect(row.txHash).toBe(before.get(id)!.txHash)
      expect(row.raw).toBe(before.get(id)!.raw)
      expect(row.failures).toBe(0)
      const receipt = (await node.getReceipt(row.txHash as Hex))!
      expect(receipt.status).toBe('success')
      expect(receipt.blockNumber >= lastBlock).toBe(true)
      lastBlock = receipt.blockNumber
    }
    const stored = await db
      .selectFrom('outgoingTransactions')
      .select('status')
      .where('transferId', 'in', ids)
      .execute()
    expect(stored.map((s) => s.status)).toEqual(ids.map(() => 'mined'))
    expect(proxy.swallowed).toHaveLength(1)
    expect(await node.getNonce(address, 'latest')).toBe(base + SENDS)
    for (const to of targets) expect(await node.balanceOf(to, 'avax')).toBe(AVAX / 10n)
    expect(await balanceOf(w, user.id, 'avax')).toBe(walletBefore - BigInt(SENDS) * (AVAX / 10n + FEE))
  } finally {
    await node.devnet.setAutomine(true)
  }
  await expectSettled(w)
})
