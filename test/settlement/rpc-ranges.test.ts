// Verified log ranges, on the real devnet behind the fault-injecting proxy: an empty eth_getLogs
// answer for a range that holds a deposit (a lagging node behind a load balancer) is not taken,
// because the blocks' logs blooms announce a token transfer; the range is asked again, then its
// doubtful block by hash (EIP-234: a node that lacks the block answers an error, never []); a
// block no answer explains stops the watcher before it until one does.
// Every deposit is credited once and reconciliation stays ok.
import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addressTopic, bloomMayContain, TRANSFER_TOPIC } from '../../src/platform/chain/bloom.ts'
import { createUser } from '../helpers/factories.ts'
import { openProxiedApp, type ProxiedApp } from '../helpers/proxied-app.ts'
import { faults } from '../helpers/rpc-proxy.ts'
import { addressOf, balanceOf, depositsOf, expectSettled, pay, round, USDC, until } from './faults-support.ts'

let w: ProxiedApp
let outsider: { address: Hex; privateKey: Hex }
beforeAll(async () => {
  w = await openProxiedApp()
  outsider = w.node.devnet.accounts[0]!
  await w.node.devnet.fund(outsider.address, 'usdc', 1_000n * USDC)
  await w.t.app.services.settlement.watcher.scanNow()
})
afterAll(() => w?.close())

type LogsFilter = { fromBlock?: Hex; toBlock?: Hex; blockHash?: Hex }
/** an eth_getLogs call over a block range (not by hash) that includes `block` */
const rangeHolding = (block: bigint) => (params: unknown[]) => {
  const f = params[0] as LogsFilter
  return (
    f.blockHash === undefined &&
    f.fromBlock !== undefined &&
    BigInt(f.fromBlock) <= block &&
    BigInt(f.toBlock ?? f.fromBlock) >= block
  )
}
const byHash = (params: unknown[]) => (params[0] as LogsFilter).blockHash !== undefined

/** A user and a deposit of 7 USDC to their custodial address (not scanned yet); its block. */
async function depositOfSeven() {
  const user = await createUser(w.t)
  const address = await addressOf(w, user)
  await w.t.app.services.settlement.watcher.scanNow()
  const signed = await pay(w, outsider, address, 'usdc', 7n * USDC)
  const receipt = await w.node.waitForReceipt(signed.hash)
  return { user, address, block: receipt.blockNumber }
}

async function expectReconciled() {
  const run = await w.t.app.services.settlement.reconciliation.runNow()
  expect(run).toMatchObject({ status: 'ok', halted: [], rescanning: [] })
  expect(await w.t.app.services.settlement.halts.list()).toEqual([])
}

describe('an empty eth_getLogs answer', () => {
  it('the dev chain’s blooms announce the token, the Transfer topic and the recipient', async () => {
    const { user, address, block } = await depositOfSeven()
    const b = (await w.t.app.services.chain.getBlock(block))!
    expect(b.logsBloom).toMatch(/^0x[0-9a-f]{512}$/)
    const usdc = w.t.app.services.chain.coin('usdc').contractAddress!
    for (const item of [usdc, TRANSFER_TOPIC, addressTopic(address)])
      expect(bloomMayContain(b.logsBloom!, item)).toBe(true)
    await until(w, async () => (await balanceOf(w, user.id, 'usdc')) === 7n * USDC)
  })

  it('once, for the range holding a 7 USDC deposit: credited once, reconciliation ok', {
    timeout: 120_000,
  }, async () => {
    const { user, block } = await depositOfSeven()
    w.proxy.add({ method: 'eth_getLogs', times: 1, when: rangeHolding(block), fault: faults.lie(() => []) })
    const before = w.proxy.faulted('eth_getLogs')
    await until(w, async () => (await balanceOf(w, user.id, 'usdc')) === 7n * USDC)
    expect(w.proxy.faulted('eth_getLogs') - before).toBe(1)
    for (let i = 0; i < 3; i++) await round(w)
    expect(await balanceOf(w, user.id, 'usdc')).toBe(7n * USDC)
    expect(await depositsOf(w, user.id, 'usdc')).toHaveLength(1)
    await expectReconciled()
  })

  it('for every range read of it: the block asked by hash answers, credited once', {
    timeout: 120_000,
  }, async () => {
    const { user, block } = await depositOfSeven()
    const lie = w.proxy.add({ method: 'eth_getLogs', when: rangeHolding(block), fault: faults.lie(() => []) })
    const byHashBefore = w.proxy.calls('eth_getLogs')
    try {
      await until(w, async () => (await balanceOf(w, user.id, 'usdc')) === 7n * USDC)
    } finally {
      lie()
    }
    // the range, once more, then the doubtful block by its hash
    expect(w.proxy.calls('eth_getLogs') - byHashBefore).toBeGreaterThanOrEqual(3)
    expect(await depositsOf(w, user.id, 'usdc')).toHaveLength(1)
    await expectReconciled()
  })

  it('for every range read, and a node that does not have the block by hash: the watcher stops before it', {
    timeout: 120_000,
  }, async () => {
    const { user, address, block } = await depositOfSeven()
    const empty = w.proxy.add({
      method: 'eth_getLogs',
      when: rangeHolding(block),
      fault: faults.lie(() => []),
    })
    // what a lagging node answers for a block it lacks, asked by hash (EIP-234)
    const unknown = w.proxy.add({
      method: 'eth_getLogs',
      when: byHash,
      fault: faults.rpcError(-32000, 'unknown block'),
    })
    const lie = () => {
      empty()
      unknown()
    }
    // a later deposit, in a later block: not credited either while the first one's block is doubtful
    await pay(w, outsider, address, 'usdc', 1n * USDC)
    // (one block at a time: EDR's hardhat_mine of several leaves their parent hashes zero)
    await w.node.devnet.mine(1)
    await w.node.devnet.mine(1)
    let errors: string[] = []
    try {
      for (let i = 0; i < 5; i++) errors = errors.concat(await round(w))
      expect((await w.t.app.services.settlement.watcher.cursor())!.number).toBe(block - 1n)
      expect(await balanceOf(w, user.id, 'usdc')).toBe(0n)
      expect(errors.join('\n')).toContain(`block ${block}`)
    } finally {
      lie()
    }
    await until(w, async () => (await balanceOf(w, user.id, 'usdc')) === 8n * USDC)
    expect(await depositsOf(w, user.id, 'usdc')).toHaveLength(2)
    await expectReconciled()
  })

  it('from a provider that lies by hash too: the watcher is misled, reconciliation finds and credits it once', {
    timeout: 120_000,
  }, async () => {
    const { user, address, block } = await depositOfSeven()
    const lie = w.proxy.add({
      method: 'eth_getLogs',
      when: (params) => rangeHolding(block)(params) || byHash(params),
      fault: faults.lie(() => []),
    })
    try {
      await until(
        w,
        async () => ((await w.t.app.services.settlement.watcher.cursor())?.number ?? 0n) >= block,
      )
    } finally {
      lie()
    }
    expect(await balanceOf(w, user.id, 'usdc')).toBe(0n)
    const run = await w.t.app.services.settlement.reconciliation.runNow()
    expect(run).toMatchObject({ status: 'mismatch', halted: [] })
    expect(run.rescanning).toEqual([
      { address: address.toLowerCase(), coin: 'usdc', drift: (7n * USDC).toString() },
    ])
    await w.t.drain()
    expect(await balanceOf(w, user.id, 'usdc')).toBe(7n * USDC)
    expect(await depositsOf(w, user.id, 'usdc')).toHaveLength(1)
    expect((await w.t.app.services.settlement.reconciliation.latest(1))[0]).toMatchObject({ status: 'ok' })
    expect(await w.t.app.services.settlement.halts.list()).toEqual([])
  })

  it('leaves the ledger equal to the chain at every address', async () => {
    await expectSettled(w)
  })
})
