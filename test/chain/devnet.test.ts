// The in-process devnet adapter. Opening a devnet costs about a second (EDR start, token
// deployment), so the file shares one instance; tests use fresh addresses and never depend on
// each other's balances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { devTokenAddress, openDevnet } from '../../src/platform/chain/devnet.ts'
import type { ChainAdapter } from '../../src/platform/chain/types.ts'
import { adapterSuite } from './adapter-suite.ts'

let chain: ChainAdapter
beforeAll(async () => {
  chain = await openDevnet(builtinCoinsConfig())
})
afterAll(() => chain.close())

adapterSuite('devnet', { adapter: () => chain, devnet: () => chain.devnet!, accountIndex: 0 })

describe('devnet specifics', () => {
  it('deploys the tokens at deterministic addresses and exposes dev accounts without the reserved ones', () => {
    expect(chain.coin('usdc').contractAddress).toBe(devTokenAddress(0))
    expect(chain.devnet!.accounts).toHaveLength(17)
    expect(chain.devnet!.accounts[0]!.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    const listed = chain.devnet!.accounts.map((a) => a.address)
    expect(listed).not.toContain(chain.treasury.address)
    expect(listed).not.toContain(chain.gasWallet.address)
  })

  it('mines blocks on demand', async () => {
    const before = await chain.blockNumber()
    await chain.devnet!.mine(3)
    expect(await chain.blockNumber()).toBe(before + 3n)
  })

  it('serves JSON-RPC on loopback once asked, and answers 503 while down', async () => {
    const url = await chain.devnet!.listen(0)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(chain.info.rpcUrls).toContain(url)
    const call = (body: unknown) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const res = await call({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] })
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 7, result: '0x7a69' })
    const batch = await call([
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 2, method: 'no_such_method' },
    ])
    const answers = (await batch.json()) as { id: number; result?: string; error?: { code: number } }[]
    expect(answers[0]!.result).toMatch(/^0x/)
    expect(answers[1]!.error?.code).toEqual(expect.any(Number))
    expect((await fetch(url, { method: 'POST', body: '{nope' })).status).toBe(400)
    expect((await fetch(url)).status).toBe(405)
    chain.devnet!.setDown(true)
    try {
      expect((await call({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' })).status).toBe(503)
    } finally {
      chain.devnet!.setDown(false)
    }
    // a reset would throw away the deployed tokens and funded keys: refused
    const reset = await call({ jsonrpc: '2.0', id: 3, method: 'hardhat_reset', params: [] })
    expect(((await reset.json()) as { error?: { code: number } }).error?.code).toBe(-32601)
  })
})
