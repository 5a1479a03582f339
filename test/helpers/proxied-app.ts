// The application in its production configuration (EVM_RPC_URL + COINS_FILE + platform keys),
// reaching a real devnet through the fault-injecting JSON-RPC proxy: the app's rpc adapter knows
// only the proxy's URL; outside keys and the test's chain controls use the devnet directly.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { devPrivateKeys, openDevnet } from '../../src/platform/chain/devnet.ts'
import type { ChainAdapter, DevnetControls } from '../../src/platform/chain/types.ts'
import { createTestApp, type TestApp } from './app.ts'
import { coinsFileOf } from './coins-file.ts'
import { type RpcProxy, startRpcProxy } from './rpc-proxy.ts'

export type DevChain = ChainAdapter & { devnet: DevnetControls }

export interface ProxiedApp {
  t: TestApp
  /** the devnet behind the proxy, with its controls (outside transfers go through it) */
  node: DevChain
  proxy: RpcProxy
  close(): Promise<void>
}

// the dev accounts the devnet funds as its treasury and gas wallet
export const TREASURY_DEV_INDEX = 18
export const GAS_WALLET_DEV_INDEX = 17

/** Opens a devnet, the proxy in front of its loopback JSON-RPC server, and the app behind the proxy. */
export async function openProxiedApp(
  opts: { env?: Record<string, string>; seed?: number } = {},
): Promise<ProxiedApp> {
  const node = (await openDevnet(builtinCoinsConfig())) as DevChain
  const dir = mkdtempSync(join(tmpdir(), 'wp-proxied-'))
  let proxy: RpcProxy | undefined
  let t: TestApp | undefined
  const release = async () => {
    await t?.close()
    await proxy?.close()
    await node.close()
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    proxy = await startRpcProxy(
      await node.devnet.listen(0),
      opts.seed === undefined ? {} : { seed: opts.seed },
    )
    const coinsFile = join(dir, 'coins.json')
    writeFileSync(coinsFile, coinsFileOf(node))
    const keys = devPrivateKeys()
    t = await createTestApp({
      env: {
        ...opts.env,
        EVM_RPC_URL: proxy.url,
        COINS_FILE: coinsFile,
        TREASURY_PRIVATE_KEY: keys[TREASURY_DEV_INDEX]!,
        GAS_WALLET_PRIVATE_KEY: keys[GAS_WALLET_DEV_INDEX]!,
      },
    })
    if (t.app.services.chain.kind !== 'rpc') throw new Error('the test app did not start the rpc adapter')
    return { t, node, proxy, close: release }
  } catch (err) {
    await release()
    throw err
  }
}
