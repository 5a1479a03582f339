// Production configuration: EVM_RPC_URL + COINS_FILE + platform keys. The app runs the rpc
// adapter against a devnet reached only over HTTP JSON-RPC; coins and chain come from the file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.ts'
import {
  builtinCoinsConfig,
  CoinsConfigError,
  parseCoinsConfig,
} from '../../src/platform/chain/coins-config.ts'
import { devPrivateKeys, openDevnet } from '../../src/platform/chain/devnet.ts'
import type { ChainAdapter } from '../../src/platform/chain/types.ts'
import { createTestApp, TEST_ENV, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'

const dir = mkdtempSync(join(tmpdir(), 'wp-coins-'))
let node: ChainAdapter
let t: TestApp
let coinsFile: string

beforeAll(async () => {
  node = await openDevnet(builtinCoinsConfig())
  const url = await node.devnet!.listen(0)
  coinsFile = join(dir, 'coins.json')
  writeFileSync(
    coinsFile,
    JSON.stringify({
      chain: {
        rpcName: 'Local C-Chain',
        rpcChainId: '31337',
        rpcUrls: ['https://rpc.example.org'],
        blockExplorerUrls: ['https://explorer.example.org'],
        rpcNativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: '18' },
      },
      coins: [
        {
          name: 'Tether',
          symbol: 'USDT',
          reference: 'usdt',
          icon: 'https://i/usdt.png',
          decimal: 6,
          isToken: true,
          contractAddress: node.coin('usdc').contractAddress!.toLowerCase(),
          order: 1,
          usdRate: 1,
        },
        {
          name: 'Avalanche',
          symbol: 'AVAX',
          reference: 'avax',
          icon: 'https://i/avax.png',
          decimal: '18',
          isToken: false,
          order: 2,
          usdRate: '27.5',
        },
        {
          name: 'Old',
          symbol: 'OLD',
          reference: 'old',
          decimal: 6,
          isToken: true,
          contractAddress: '0x000000000000000000000000000000000000dEaD',
          order: 3,
          active: false,
          usdRate: 0,
        },
      ],
    }),
  )
  t = await createTestApp({
    env: {
      EVM_RPC_URL: url,
      COINS_FILE: coinsFile,
      TREASURY_PRIVATE_KEY: devPrivateKeys()[18]!,
      GAS_WALLET_PRIVATE_KEY: devPrivateKeys()[17]!.slice(2),
    },
  })
})
afterAll(async () => {
  await t?.close()
  await node?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('rpc mode from COINS_FILE', () => {
  it('uses the rpc adapter with the configured coins, keys and chain', async () => {
    const chain = t.app.services.chain
    expect(chain.kind).toBe('rpc')
    expect(chain.devnet).toBeUndefined()
    expect(chain.treasury.address).toBe(node.treasury.address)
    expect(chain.gasWallet.address).toBe(node.gasWallet.address)
    expect(await chain.balanceOf(chain.treasury.address, 'usdt')).toBe(
      await node.balanceOf(node.treasury.address, 'usdc'),
    )
  })

  it('#16 lists only the active coins of the file, in its order', async () => {
    const user = await createUser(t)
    const res = await t.req({ method: 'GET', url: '/v1/payment/coins', token: user.token })
    expect(res.statusCode).toBe(200)
    const data = res.json().data
    expect(data.map((c: { reference: string }) => c.reference)).toEqual(['usdt', 'avax'])
    expect(data[0]).toMatchObject({
      symbol: 'USDT',
      decimal: '6',
      isToken: true,
      contractAddress: node.coin('usdc').contractAddress,
      order: 1,
    })
    expect(data[1]).not.toHaveProperty('contractAddress')
    await expect(t.app.services.coins.get('old')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' })
  })

  it('#17 shows the public URLs of the file, never EVM_RPC_URL', async () => {
    const user = await createUser(t)
    const res = await t.req({ method: 'GET', url: '/v1/payment/rpc', token: user.token })
    expect(res.json().data).toMatchObject({
      rpcName: 'Local C-Chain',
      rpcChainId: '31337',
      rpcUrls: ['https://rpc.example.org'],
      blockExplorerUrls: ['https://explorer.example.org'],
      rpcNativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: '18' },
      active: true,
    })
    expect(res.body).not.toContain('127.0.0.1')
  })

  it('#21 uses the static rates of the file', async () => {
    const user = await createUser(t)
    const res = await t.req({ method: 'GET', url: '/v1/transaction/exchange', token: user.token })
    expect(res.json().data).toEqual({ usdt: 1, avax: 27.5 })
  })
})

describe('configuration errors', () => {
  it('EVM_RPC_URL without COINS_FILE or keys is refused at start', () => {
    expect(() => loadConfig({ ...TEST_ENV, EVM_RPC_URL: 'http://127.0.0.1:1' })).toThrow(ConfigError)
    expect(() => loadConfig({ ...TEST_ENV, TREASURY_PRIVATE_KEY: '0x1234' })).toThrow(/TREASURY_PRIVATE_KEY/)
  })

  it('a COINS_FILE with problems reports all of them', () => {
    const err = (() => {
      try {
        parseCoinsConfig(
          {
            chain: { rpcName: '', rpcChainId: 'abc', rpcNativeCurrency: { name: 'X', symbol: 'X' } },
            coins: [
              { name: 'A', symbol: 'A', reference: 'Bad Ref', decimal: 99, isToken: false, usdRate: 'x' },
              { name: 'B', symbol: 'B', reference: 'b', decimal: 6, isToken: true, usdRate: 1 },
              { name: 'C', symbol: 'C', reference: 'b', decimal: 6, isToken: false, usdRate: 1 },
            ],
          },
          true,
        )
      } catch (e) {
        return e
      }
    })() as CoinsConfigError
    expect(err).toBeInstanceOf(CoinsConfigError)
    const text = err.problems.join('\n')
    for (const part of [
      'chain.rpcName',
      'chain.rpcChainId',
      'coins[0].reference',
      'coins[0].decimal',
      'coins[0].usdRate',
      'coins[1].contractAddress is required',
      'used twice',
      'at most one coin may be native',
    ])
      expect(text).toContain(part)
  })
})
