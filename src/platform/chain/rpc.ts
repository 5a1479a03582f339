// The production adapter: any EVM JSON-RPC endpoint (EVM_RPC_URL), coins and token addresses
// from COINS_FILE, platform keys from the environment.
import { createPublicClient, defineChain, fallback, type Hex, http, type PublicClient, webSocket } from 'viem'
import type { ChainSettings, CoinSettings } from './coins-config.ts'
import { toChainError } from './errors.ts'
import { createEvmAdapter } from './evm-adapter.ts'
import { type ChainAdapter, type ChainCoin, ChainError } from './types.ts'

export interface RpcOptions {
  /** one URL, or several separated by commas (tried in order: fallback) */
  url: string
  chain: ChainSettings
  coins: CoinSettings[]
  treasuryKey: Hex
  gasWalletKey: Hex
  /** per request; default 10 s */
  timeoutMs?: number
  /** retries of a failed request (network errors, 5xx, 429); default 2 */
  retryCount?: number
  /** check the node's chain id against the configuration (default true) */
  verifyChainId?: boolean
}

export async function openRpc(opts: RpcOptions): Promise<ChainAdapter> {
  const chainId = Number(opts.chain.rpcChainId)
  const nativeCurrency = {
    name: opts.chain.rpcNativeCurrency.name,
    symbol: opts.chain.rpcNativeCurrency.symbol,
    decimals: Number(opts.chain.rpcNativeCurrency.decimals),
  }
  const urls = opts.url
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)
  const chain = defineChain({
    id: chainId,
    name: opts.chain.rpcName,
    nativeCurrency,
    rpcUrls: { default: { http: opts.chain.rpcUrls.length ? opts.chain.rpcUrls : urls } },
  })
  const transportOpts = { timeout: opts.timeoutMs ?? 10_000, retryCount: opts.retryCount ?? 2 }
  const transports = urls.map((u) =>
    /^wss?:/.test(u) ? webSocket(u, transportOpts) : http(u, transportOpts),
  )
  const client = createPublicClient({
    chain,
    transport: transports.length === 1 ? transports[0]! : fallback(transports),
  }) as PublicClient

  if (opts.verifyChainId !== false) {
    let actual: number
    try {
      actual = await client.getChainId()
    } catch (err) {
      throw toChainError(err, 'connect')
    }
    if (actual !== chainId)
      throw new ChainError(
        'INVALID_ARGUMENT',
        `the node at EVM_RPC_URL is on chain ${actual}, the configuration says ${chainId}`,
      )
  }

  const coins: ChainCoin[] = opts.coins.map((c) => ({
    reference: c.reference,
    name: c.name,
    symbol: c.symbol,
    icon: c.icon,
    decimals: c.decimal,
    isToken: c.isToken,
    contractAddress: c.isToken ? (c.contractAddress as `0x${string}`) : null,
    order: c.order,
    active: c.active,
    usdRate: c.usdRate,
  }))
  return createEvmAdapter({
    kind: 'rpc',
    chain,
    info: {
      chainId,
      name: opts.chain.rpcName,
      rpcUrls: opts.chain.rpcUrls,
      blockExplorerUrls: opts.chain.blockExplorerUrls,
      nativeCurrency,
    },
    client,
    coins,
    treasuryKey: opts.treasuryKey,
    gasWalletKey: opts.gasWalletKey,
  })
}
