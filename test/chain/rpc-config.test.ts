// The chain's configuration: EVM_RPC_URLS (several providers) or EVM_RPC_URL, never both; and
// CONFIRMATIONS as a number or `finalized`. Pure (no chain is opened).
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { confirmations, evmRpcUrls } from '../../src/config-env.ts'

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env)
    return []
  } catch (err) {
    if (err instanceof ConfigError) return err.problems
    throw err
  }
}

describe('EVM_RPC_URLS and EVM_RPC_URL', () => {
  it('EVM_RPC_URLS lists providers, comma-separated; EVM_RPC_URL still works, with one or several', () => {
    const p: string[] = []
    expect(evmRpcUrls({ EVM_RPC_URLS: 'https://a.example/rpc, wss://b.example' }, p)).toEqual([
      'https://a.example/rpc',
      'wss://b.example',
    ])
    expect(evmRpcUrls({ EVM_RPC_URL: 'http://127.0.0.1:8545' }, p)).toEqual(['http://127.0.0.1:8545'])
    expect(evmRpcUrls({ EVM_RPC_URL: 'https://a.example,https://b.example' }, p)).toHaveLength(2)
    expect(evmRpcUrls({}, p)).toEqual([])
    expect(p).toEqual([])
  })

  it('refuses both at once, a URL that is none, and one endpoint twice', () => {
    for (const [env, problem] of [
      [{ EVM_RPC_URLS: 'https://a.example', EVM_RPC_URL: 'https://b.example' }, /both set/],
      [{ EVM_RPC_URLS: 'https://a.example,ftp://b.example' }, /EVM_RPC_URLS must be URLs/],
      [{ EVM_RPC_URLS: 'https://a.example,https://a.example' }, /same endpoint twice/],
    ] as const) {
      const p: string[] = []
      expect(evmRpcUrls(env, p)).toEqual([])
      expect(p.join()).toMatch(problem)
    }
  })

  it('the configuration carries both the list and the comma-separated text', () => {
    const c = loadConfig({
      JWT_SECRET: 'x'.repeat(40),
      KEY_ENCRYPTION_KEY: 'ab'.repeat(32),
      DATA_DIR: '/tmp/wp-rpc-config-unused',
      EVM_RPC_URLS: 'https://a.example,https://b.example',
      COINS_FILE: '/etc/coins.json',
      TREASURY_PRIVATE_KEY: `0x${'12'.repeat(32)}`,
      GAS_WALLET_PRIVATE_KEY: `0x${'34'.repeat(32)}`,
    })
    expect(c.evmRpcUrls).toEqual(['https://a.example', 'https://b.example'])
    expect(c.evmRpcUrl).toBe('https://a.example,https://b.example')
    expect(c.confirmations).toBe(1)
  })

  it('production accepts either variable, and names EVM_RPC_URL when neither is set', () => {
    const base = { NODE_ENV: 'production' }
    expect(problemsOf(base)).toContain('EVM_RPC_URL is required when NODE_ENV=production')
    const either: Record<string, string>[] = [
      { EVM_RPC_URLS: 'https://a.example,https://b.example' },
      { EVM_RPC_URL: 'https://a.example' },
    ]
    for (const env of either)
      expect(problemsOf({ ...base, ...env }).filter((p) => p.includes('EVM_RPC'))).toEqual([])
  })
})

describe('CONFIRMATIONS', () => {
  it('is a number of blocks or finalized', () => {
    const p: string[] = []
    expect(confirmations(undefined, p)).toBe(1)
    expect(confirmations('12', p)).toBe(12)
    expect(confirmations('0', p)).toBe(0)
    expect(confirmations('finalized', p)).toBe('finalized')
    expect(confirmations('Finalized', p)).toBe('finalized')
    expect(p).toEqual([])
    expect(confirmations('safe', p)).toBe(1)
    expect(p).toEqual(['CONFIRMATIONS must be an integer between 0 and 1000, or finalized (got "safe")'])
  })
})
