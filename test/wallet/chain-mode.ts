// Runs a wallet suite against both chain adapters. `devnet`: the app embeds the dev chain (the
// default configuration). `rpc`: the production configuration (EVM_RPC_URL + COINS_FILE +
// platform keys), the app's adapter talking real HTTP JSON-RPC to a standalone devnet started by
// the test, which only outside keys (and the test's funding and mining) use directly.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe } from 'vitest'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { devPrivateKeys, openDevnet } from '../../src/platform/chain/devnet.ts'
import { openChain } from '../../src/platform/chain/index.ts'
import type { ChainAdapter, DevnetControls } from '../../src/platform/chain/types.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

export type ChainMode = 'devnet' | 'rpc'
export const CHAIN_MODES: readonly ChainMode[] = ['devnet', 'rpc']

/** A dev chain with its test controls. */
export type DevChain = ChainAdapter & { devnet: DevnetControls }

export interface ChainModeApp {
  mode: ChainMode
  t: TestApp
  /**
   * The dev chain the app follows: its own adapter in devnet mode, the standalone node in rpc
   * mode. Transfers signed outside the platform are sent through it.
   */
  node: DevChain
  /**
   * A new connection to the same chain, as a restarted process would open it (in devnet mode the
   * chain lives in the app, so it is the app's adapter). Release it when done.
   */
  reconnect(): Promise<{ chain: ChainAdapter; release(): Promise<void> }>
  close(): Promise<void>
}

// The dev accounts the standalone devnet funds as its treasury and gas wallet.
const TREASURY_DEV_INDEX = 18
const GAS_WALLET_DEV_INDEX = 17

export async function openChainModeApp(
  mode: ChainMode,
  opts: { env?: Record<string, string> } = {},
): Promise<ChainModeApp> {
  if (mode === 'devnet') {
    const t = await createTestApp(opts)
    const chain = t.app.services.chain
    if (chain.kind !== 'devnet' || !chain.devnet) throw new Error('the test app did not start a devnet')
    return {
      mode,
      t,
      node: chain as DevChain,
      reconnect: async () => ({ chain, release: async () => {} }),
      close: () => t.close(),
    }
  }

  const builtin = builtinCoinsConfig()
  const node = (await openDevnet(builtin)) as DevChain
  const dir = mkdtempSync(join(tmpdir(), 'wp-wallet-rpc-'))
  let t: TestApp | undefined
  try {
    const url = await node.devnet.listen(0)
    const coinsFile = join(dir, 'coins.json')
    writeFileSync(
      coinsFile,
      JSON.stringify({
        chain: builtin.chain,
        // The same coins, with the token addresses the devnet deployed them at.
        coins: node.coins.map((c) => ({
          name: c.name,
          symbol: c.symbol,
          reference: c.reference,
          icon: c.icon,
          decimal: c.decimals,
          isToken: c.isToken,
          ...(c.contractAddress ? { contractAddress: c.contractAddress } : {}),
          order: c.order,
          active: c.active,
          usdRate: c.usdRate,
        })),
      }),
    )
    const keys = devPrivateKeys()
    t = await createTestApp({
      env: {
        ...opts.env,
        EVM_RPC_URL: url,
        COINS_FILE: coinsFile,
        TREASURY_PRIVATE_KEY: keys[TREASURY_DEV_INDEX]!,
        GAS_WALLET_PRIVATE_KEY: keys[GAS_WALLET_DEV_INDEX]!,
      },
    })
    const app = t
    if (app.app.services.chain.kind !== 'rpc') throw new Error('the test app did not start the rpc adapter')
    return {
      mode,
      t: app,
      node,
      async reconnect() {
        const { chain } = await openChain(app.config)
        return { chain, release: () => chain.close() }
      },
      async close() {
        await app.close()
        await node.close()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  } catch (err) {
    await t?.close()
    await node.close()
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
}

/**
 * One `describe` per chain mode around `body`, each with its own app (opened before, closed after
 * the block). `setup` runs once the app is up, before the block's tests.
 */
export function describeChainModes(
  opts: { env?: Record<string, string>; setup: (c: ChainModeApp) => Promise<void> | void },
  body: (mode: ChainMode) => void,
) {
  describe.each(CHAIN_MODES)('on the %s chain', (mode) => {
    let opened: ChainModeApp | undefined
    beforeAll(async () => {
      opened = await openChainModeApp(mode, opts.env ? { env: opts.env } : {})
      await opts.setup(opened)
    })
    afterAll(() => opened?.close())
    body(mode)
  })
}
