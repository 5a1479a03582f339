// The JSON-RPC adapter, tested against the devnet over real HTTP: one devnet (about a second to
// open) serves this whole file on a loopback port, and the rpc adapter knows it only by URL.
import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtinCoinsConfig, type CoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { devPrivateKeys, openDevnet } from '../../src/platform/chain/devnet.ts'
import { openRpc } from '../../src/platform/chain/rpc.ts'
import type { ChainAdapter } from '../../src/platform/chain/types.ts'
import { adapterSuite } from './adapter-suite.ts'

let devnet: ChainAdapter
let rpc: ChainAdapter
let settings: CoinsConfig
let url: string

beforeAll(async () => {
  devnet = await openDevnet(builtinCoinsConfig())
  url = await devnet.devnet!.listen(0)
  const builtin = builtinCoinsConfig()
  // what a COINS_FILE for this chain would say: token addresses are given, not deployed
  settings = {
    chain: { ...builtin.chain, rpcUrls: [url] },
    coins: builtin.coins.map((c) => ({ ...c, contractAddress: devnet.coin(c.reference).contractAddress })),
  }
  rpc = await openRpc({
    url,
    chain: settings.chain,
    coins: settings.coins,
    treasuryKey: devPrivateKeys()[18]!,
    gasWalletKey: devPrivateKeys()[17]!,
    retryCount: 0,
  })
})
afterAll(async () => {
  await rpc?.close()
  await devnet?.close()
})

adapterSuite('rpc', { adapter: () => rpc, devnet: () => devnet.devnet!, accountIndex: 1 })

async function deadPort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()))
  const { port } = srv.address() as { port: number }
  await new Promise<void>((r) => srv.close(() => r()))
  return port
}

describe('rpc specifics', () => {
  it('is an rpc adapter without devnet controls, showing only the configured public URLs', () => {
    expect(rpc.kind).toBe('rpc')
    expect(rpc.devnet).toBeUndefined()
    expect(rpc.info.rpcUrls).toEqual([url])
    expect(rpc.coin('usdc').contractAddress).toBe(devnet.coin('usdc').contractAddress)
  })

  it('refuses a node whose chain id differs from the configuration', async () => {
    await expect(
      openRpc({
        url,
        chain: { ...settings.chain, rpcChainId: '43114' },
        coins: settings.coins,
        treasuryKey: devPrivateKeys()[18]!,
        gasWalletKey: devPrivateKeys()[17]!,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' })
  })

  it('an endpoint nobody listens on is UNAVAILABLE at start-up and for every call', async () => {
    const dead = `http://127.0.0.1:${await deadPort()}`
    const opts = {
      url: dead,
      chain: settings.chain,
      coins: settings.coins,
      treasuryKey: devPrivateKeys()[18]!,
      gasWalletKey: devPrivateKeys()[17]!,
      retryCount: 0,
    }
    await expect(openRpc(opts)).rejects.toMatchObject({ code: 'UNAVAILABLE', retryable: true })
    const unchecked = await openRpc({ ...opts, verifyChainId: false })
    await expect(unchecked.blockNumber()).rejects.toMatchObject({ code: 'UNAVAILABLE' })
    await expect(unchecked.getNonce(devnet.treasury.address)).rejects.toMatchObject({ code: 'UNAVAILABLE' })
    await unchecked.close()
  })
})
