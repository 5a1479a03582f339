// A devnet's EVM started ahead of its open (startDevnetEarly, as `npm start` does while the
// database opens): the next open of that chain id takes it, once, and one started for another
// chain id is not used.
import { describe, expect, it } from 'vitest'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { devTokenAddress, openDevnet, startDevnetEarly } from '../../src/platform/chain/devnet.ts'
import type { ChainAdapter } from '../../src/platform/chain/types.ts'

/** The chain id the devnet's EVM itself answers over JSON-RPC. */
async function evmChainId(chain: ChainAdapter): Promise<string> {
  const url = await chain.devnet!.listen(0)
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
  })
  return ((await res.json()) as { result: string }).result
}

describe('a devnet started early', () => {
  it('is taken by the next open of its chain id, which boots on it; the open after makes an EVM of its own', async () => {
    const config = builtinCoinsConfig()
    // A mark left in the early EVM before any open: only the devnet built on it holds it.
    const marked = '0x00000000000000000000000000000000000e4a11'
    const engine = await startDevnetEarly(Number(config.chain.rpcChainId))
    await engine.provider.request({ method: 'hardhat_setBalance', params: [marked, '0x2a'] })
    const first = await openDevnet(config)
    const second = await openDevnet(config)
    try {
      expect(await first.balanceOf(marked, 'avax')).toBe(42n)
      expect(await second.balanceOf(marked, 'avax')).toBe(0n)
      expect(await evmChainId(first)).toBe('0x7a69')
      expect(first.coin('usdc').contractAddress).toBe(devTokenAddress(0))
      const head = await second.blockNumber()
      expect(await first.blockNumber()).toBe(head)
      const treasury = first.treasury.address
      expect(await first.balanceOf(treasury, 'usdc')).toBe(await second.balanceOf(treasury, 'usdc'))
      await first.devnet!.mine(3)
      expect(await first.blockNumber()).toBe(head + 3n)
      expect(await second.blockNumber()).toBe(head)
    } finally {
      await first.close()
      await second.close()
    }
  }, 60_000)

  it('one started for another chain id is not used: the devnet answers its own', async () => {
    const config = builtinCoinsConfig()
    startDevnetEarly(1337)
    const chain = await openDevnet(config)
    try {
      expect(await evmChainId(chain)).toBe('0x7a69')
      expect(await chain.balanceOf(chain.treasury.address, 'usdc')).toBeGreaterThan(0n)
    } finally {
      await chain.close()
    }
  }, 60_000)
})
