// The application in its production configuration with two providers (EVM_RPC_URLS): two
// fault-injecting proxies in front of the same real devnet, so that one can lag, lie or fail while
// the other answers truly. Returned in the shape of a ProxiedApp (its `proxy` is the first one),
// so the fault tests' rounds and payments serve here too.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { devPrivateKeys, openDevnet } from '../../src/platform/chain/devnet.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { coinsFileOf } from '../helpers/coins-file.ts'
import type { DevChain, ProxiedApp } from '../helpers/proxied-app.ts'
import { type RpcProxy, startRpcProxy } from '../helpers/rpc-proxy.ts'

export interface TwoProviders extends ProxiedApp {
  /** the second provider */
  other: RpcProxy
}

export async function openTwoProviderApp(opts: { env?: Record<string, string> } = {}): Promise<TwoProviders> {
  const node = (await openDevnet(builtinCoinsConfig())) as DevChain
  const dir = mkdtempSync(join(tmpdir(), 'wp-providers-'))
  let first: RpcProxy | undefined
  let other: RpcProxy | undefined
  let t: TestApp | undefined
  const release = async () => {
    await t?.close()
    await first?.close()
    await other?.close()
    await node.close()
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    const upstream = await node.devnet.listen(0)
    first = await startRpcProxy(upstream, { seed: 1 })
    other = await startRpcProxy(upstream, { seed: 2 })
    const coinsFile = join(dir, 'coins.json')
    writeFileSync(coinsFile, coinsFileOf(node))
    const keys = devPrivateKeys()
    t = await createTestApp({
      env: {
        ...opts.env,
        EVM_RPC_URLS: `${first.url},${other.url}`,
        COINS_FILE: coinsFile,
        TREASURY_PRIVATE_KEY: keys[18]!,
        GAS_WALLET_PRIVATE_KEY: keys[17]!,
      },
    })
    if (t.app.services.chain.kind !== 'rpc') throw new Error('the test app did not start the rpc adapter')
    return { t, node, proxy: first, other, close: release }
  } catch (err) {
    await release()
    throw err
  }
}
