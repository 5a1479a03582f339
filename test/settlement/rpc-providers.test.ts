// Two providers (EVM_RPC_URLS) in front of the same real devnet, one of them lagging, stale,
// running ahead, going backwards or down: confirmations count from the lowest healthy head, never
// from one ahead, never backwards; reads fall over to the provider that answers. Deposits are
// credited once. `finalized` on the dev chain is its latest block (EDR has no consensus layer).
import { type Hex, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../helpers/factories.ts'
import { faults } from '../helpers/rpc-proxy.ts'
import { addressOf, balanceOf, depositsOf, expectSettled, pay, round, USDC, until } from './faults-support.ts'
import { openTwoProviderApp, type TwoProviders } from './providers-support.ts'

let w: TwoProviders
let outsider: { address: Hex; privateKey: Hex }
const chain = () => w.t.app.services.chain
beforeAll(async () => {
  w = await openTwoProviderApp()
  outsider = w.node.devnet.accounts[0]!
  await w.node.devnet.fund(outsider.address, 'usdc', 1_000n * USDC)
  await w.t.app.services.settlement.watcher.scanNow()
})
afterAll(() => w?.close())

/** `n` blocks, one at a time (EDR's hardhat_mine of several blocks leaves their parent hashes zero) */
async function mine(n: number) {
  for (let i = 0; i < n; i++) await w.node.devnet.mine(1)
}

/** the second provider answers eth_blockNumber with `head(real)` until the returned function is called */
const otherSays = (head: (real: bigint) => bigint) =>
  w.other.add({ method: 'eth_blockNumber', fault: faults.lie((real) => toHex(head(BigInt(real as string)))) })

describe('two providers', () => {
  it('are both asked for their heads; the app knows only their URLs', async () => {
    expect(w.t.config.evmRpcUrls).toEqual([w.proxy.url, w.other.url])
    const [a, b] = [w.proxy.calls('eth_blockNumber'), w.other.calls('eth_blockNumber')]
    expect(await chain().confirmedHead(1)).toBe(await w.node.blockNumber())
    expect(w.proxy.calls('eth_blockNumber')).toBeGreaterThan(a)
    expect(w.other.calls('eth_blockNumber')).toBeGreaterThan(b)
  })

  it('one lagging two blocks: confirmations count from its head, the deposit waits for it', {
    timeout: 120_000,
  }, async () => {
    const user = await createUser(w.t)
    const address = await addressOf(w, user)
    const lag = otherSays((real) => real - 2n)
    try {
      // (its head starts below the last one used, which is kept until it has caught up)
      await mine(3)
      await pay(w, outsider, address, 'usdc', 5n * USDC)
      const head = await w.node.blockNumber()
      expect(await chain().confirmedHead(1)).toBe(head - 2n)
      for (let i = 0; i < 3; i++) await round(w)
      expect(await balanceOf(w, user.id, 'usdc')).toBe(0n)
      expect((await w.t.app.services.settlement.watcher.cursor())!.number).toBe(head - 2n)
      // two more blocks: the lagging provider's head reaches the deposit
      await mine(2)
      await until(w, async () => (await balanceOf(w, user.id, 'usdc')) === 5n * USDC)
    } finally {
      lag()
    }
    expect(await depositsOf(w, user.id, 'usdc')).toHaveLength(1)
  })

  it('one running ahead never counts', async () => {
    const ahead = otherSays((real) => real + 5n)
    try {
      expect(await chain().confirmedHead(1)).toBe(await w.node.blockNumber())
      expect(await chain().confirmedHead(3)).toBe((await w.node.blockNumber()) - 2n)
    } finally {
      ahead()
    }
  })

  it('one stale far behind is left out; a head lower than the last one used is ignored', {
    timeout: 120_000,
  }, async () => {
    const stale = await w.node.blockNumber()
    await mine(20)
    const frozen = otherSays(() => stale)
    try {
      const head = await w.node.blockNumber()
      expect(await chain().confirmedHead(1)).toBe(head)
      // both now answer three blocks back (a node that went backwards): the last head is kept
      const back = w.proxy.add({
        method: 'eth_blockNumber',
        fault: faults.lie((real) => toHex(BigInt(real as string) - 3n)),
      })
      try {
        expect(await chain().confirmedHead(1)).toBe(head)
      } finally {
        back()
      }
      // a deposit is credited from the healthy provider's head meanwhile
      const user = await createUser(w.t)
      await pay(w, outsider, await addressOf(w, user), 'usdc', 3n * USDC)
      await until(w, async () => (await balanceOf(w, user.id, 'usdc')) === 3n * USDC)
    } finally {
      frozen()
    }
  })

  it('one down: reads fall over to the other and deposits are credited once', {
    timeout: 120_000,
  }, async () => {
    const down = w.other.add({ method: '*', fault: faults.http500 })
    try {
      const user = await createUser(w.t)
      await pay(w, outsider, await addressOf(w, user), 'usdc', 2n * USDC)
      await until(w, async () => (await balanceOf(w, user.id, 'usdc')) === 2n * USDC)
      for (let i = 0; i < 2; i++) await round(w)
      expect(await depositsOf(w, user.id, 'usdc')).toHaveLength(1)
    } finally {
      down()
    }
  })

  it('one answering every range holding a deposit with []: the other provider’s answer is taken', {
    timeout: 120_000,
  }, async () => {
    const user = await createUser(w.t)
    const address = await addressOf(w, user)
    const signed = await pay(w, outsider, address, 'usdc', 6n * USDC)
    const block = (await w.node.waitForReceipt(signed.hash)).blockNumber
    type Filter = { fromBlock?: Hex; toBlock?: Hex; blockHash?: Hex }
    const holding = (params: unknown[]) => {
      const f = params[0] as Filter
      return f.fromBlock !== undefined && BigInt(f.fromBlock) <= block && BigInt(f.toBlock!) >= block
    }
    const byHash = (params: unknown[]) => (params[0] as Filter).blockHash !== undefined
    const rules = [
      w.proxy.add({ method: 'eth_getLogs', when: holding, fault: faults.lie(() => []) }),
      // the other is wrong twice (its first answer and the range asked of it again), so that the
      // lying one is asked on its own whichever the ranking puts first; neither has it by hash
      w.other.add({ method: 'eth_getLogs', when: holding, times: 2, fault: faults.lie(() => []) }),
      w.proxy.add({ method: 'eth_getLogs', when: byHash, fault: faults.rpcError(-32000, 'unknown block') }),
      w.other.add({ method: 'eth_getLogs', when: byHash, fault: faults.rpcError(-32000, 'unknown block') }),
    ]
    try {
      await until(w, async () => (await balanceOf(w, user.id, 'usdc')) === 6n * USDC)
    } finally {
      for (const remove of rules) remove()
    }
    expect(w.proxy.faulted('eth_getLogs')).toBeGreaterThanOrEqual(1)
    expect(await depositsOf(w, user.id, 'usdc')).toHaveLength(1)
  })

  it('`finalized` is the dev chain’s latest block (EDR answers the tag with it)', async () => {
    const head = await w.node.blockNumber()
    expect(await chain().confirmedHead('finalized')).toBe(head)
  })

  it('leaves the ledger equal to the chain at every address', { timeout: 120_000 }, async () => {
    w.other.clear()
    await expectSettled(w)
  })
})
