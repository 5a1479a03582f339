// The production adapter: EVM JSON-RPC endpoints (EVM_RPC_URLS, or EVM_RPC_URL) through viem's
// `fallback` transport, ranked by latency and stability; coins and token addresses from
// COINS_FILE, platform keys from the environment. Each endpoint is also reachable on its own, for
// the providers' heads and for second opinions on a log range.
import { createPublicClient, defineChain, fallback, type Hex, http, type PublicClient, webSocket } from 'viem'
import type { ChainSettings, CoinSettings } from './coins-config.ts'
import { toChainError } from './errors.ts'
import { createEvmAdapter } from './evm-adapter.ts'
import { type ChainAdapter, type ChainCoin, ChainError } from './types.ts'

export interface RpcOptions {
  /** one URL, or several separated by commas (ranked: fallback) */
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
  /** how often the providers are pinged to rank them (ms); default 4000 */
  rankIntervalMs?: number
  /** told when providers lag or a head went backwards */
  onHeadWarning?: (message: string, details: Record<string, unknown>) => void
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
  const timeout = opts.timeoutMs ?? 10_000
  const retryCount = opts.retryCount ?? 2
  const transportOf = (u: string, retries: number) =>
    /^wss?:/.test(u)
      ? webSocket(u, { timeout, retryCount: retries })
      : http(u, { timeout, retryCount: retries })
  let closed = false
  const client = createPublicClient({
    chain,
    transport:
      urls.length === 1
        ? transportOf(urls[0]!, retryCount)
        : fallback(
            urls.map((u) => transportOf(u, 0)),
            {
              retryCount,
              rank: {
                interval: opts.rankIntervalMs ?? 4_000,
                // eth_blockNumber: every provider answers it (net_listening is not always served);
                // after close the ranking waits for ever on a promise that holds no timer.
                ping: ({ transport }) =>
                  closed ? new Promise(() => {}) : transport.request({ method: 'eth_blockNumber' }),
              },
            },
          ),
  }) as PublicClient
  // Each provider on its own, without retries: one that fails is simply not counted for that read.
  const providers =
    urls.length === 1
      ? [client]
      : urls.map((u) => createPublicClient({ chain, transport: transportOf(u, 0) }) as PublicClient)

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
    ...(c.maxFeePerGas === undefined ? {} : { maxFeePerGas: c.maxFeePerGas }),
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
    providers,
    ...(opts.onHeadWarning ? { onHeadWarning: opts.onHeadWarning } : {}),
    coins,
    treasuryKey: opts.treasuryKey,
    gasWalletKey: opts.gasWalletKey,
    onClose: async () => {
      closed = true
    },
  })
}
