// The chain's part of the configuration (config.ts): the JSON-RPC endpoints or the embedded dev
// chain, the platform's keys on it, the price feed and the confirmations a deposit needs; and the
// configuration of the standalone dev chain node (`dist/devchain.js`).
import { ConfigError, confirmations, type Env, type envReader, evmRpcUrls } from './config-env.ts'

export interface ChainConfig {
  /** the JSON-RPC endpoints, comma-separated (EVM_RPC_URLS or EVM_RPC_URL); unset: the devnet */
  evmRpcUrl: string | undefined
  /** the same endpoints as a list (empty: the devnet) */
  evmRpcUrls: string[]
  /** each JSON-RPC request's time limit in ms (EVM_RPC_TIMEOUT_MS, default 10 s); a hung provider
   * answers no later, and the request is retried or another provider asked */
  evmRpcTimeoutMs: number
  coinsFile: string | undefined
  devchainPort: number | undefined
  /** platform treasury key (0x + 64 hex); required with EVM_RPC_URL, a dev account on the devnet */
  treasuryPrivateKey: `0x${string}` | undefined
  /** key of the wallet that pays gas top-ups; required with EVM_RPC_URL */
  gasWalletPrivateKey: `0x${string}` | undefined
  /** HTTP price feed answering `{ "<coin reference>": <usd number> }`; static rates when unset */
  rateFeedUrl: string | undefined
  /** how long a fetched price list is reused */
  rateFeedTtlMs: number
  /** a price list older than this (feed unreachable) is refused rather than used */
  rateFeedMaxAgeMs: number
  /** blocks before a deposit counts (itself included), or the chain's `finalized` block */
  confirmations: number | 'finalized'
}

/** Reads the chain's variables, noting what is wrong (or missing in production) in `problems`. */
export function chainConfig(
  env: Env,
  r: ReturnType<typeof envReader>,
  production: boolean,
  problems: string[],
): ChainConfig {
  const { str, int, url, privateKey } = r
  if (production) {
    if (str('EVM_RPC_URL') === undefined && str('EVM_RPC_URLS') === undefined)
      problems.push('EVM_RPC_URL is required when NODE_ENV=production')
    if (str('DEVCHAIN_PORT') !== undefined)
      problems.push('DEVCHAIN_PORT is refused when NODE_ENV=production: the dev chain never runs there')
  }
  const devchainPortRaw = str('DEVCHAIN_PORT')
  const rpcUrls = evmRpcUrls(env, problems)
  const chain: ChainConfig = {
    evmRpcUrl: rpcUrls.length > 0 ? rpcUrls.join(',') : undefined,
    evmRpcUrls: rpcUrls,
    evmRpcTimeoutMs: int('EVM_RPC_TIMEOUT_MS', 10_000, 100, 120_000),
    coinsFile: str('COINS_FILE'),
    devchainPort: devchainPortRaw === undefined ? undefined : int('DEVCHAIN_PORT', 8545, 1, 65535),
    treasuryPrivateKey: privateKey('TREASURY_PRIVATE_KEY'),
    gasWalletPrivateKey: privateKey('GAS_WALLET_PRIVATE_KEY'),
    rateFeedUrl: url('RATE_FEED_URL', ['http:', 'https:']),
    rateFeedTtlMs: int('RATE_FEED_TTL_MS', 60_000, 0, 24 * 3600 * 1000),
    rateFeedMaxAgeMs: int('RATE_FEED_MAX_AGE_MS', 15 * 60_000, 1000, 7 * 24 * 3600 * 1000),
    confirmations: confirmations(str('CONFIRMATIONS'), problems),
  }
  if (
    !production &&
    chain.evmRpcUrl &&
    (!chain.coinsFile || !chain.treasuryPrivateKey || !chain.gasWalletPrivateKey)
  )
    problems.push('EVM_RPC_URL needs COINS_FILE, TREASURY_PRIVATE_KEY and GAS_WALLET_PRIVATE_KEY')
  return chain
}

/** The standalone dev chain node (`dist/devchain.js`), for container set-ups without a real chain. */
export interface DevchainConfig {
  /** address the JSON-RPC endpoint is served on (all interfaces in a container) */
  host: string
  port: number
  /** where the coins file for EVM_RPC_URL clients is written (token addresses as deployed) */
  coinsOut: string | undefined
  /** public JSON-RPC URL written into that coins file for wallet apps */
  publicUrl: string | undefined
  /** file journal of the chain's state changes, replayed at start; in memory only when unset */
  journalFile: string | undefined
}

export function loadDevchainConfig(env: Env = process.env): DevchainConfig {
  const get = (name: string) => (env[name]?.trim() ? env[name]!.trim() : undefined)
  const port = Number(get('DEVCHAIN_PORT') ?? 8545)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError([
      `DEVCHAIN_PORT must be an integer between 0 and 65535 (got "${get('DEVCHAIN_PORT')}")`,
    ])
  if (get('NODE_ENV') === 'production')
    throw new ConfigError(['the dev chain never runs when NODE_ENV=production'])
  return {
    host: get('DEVCHAIN_HOST') ?? '127.0.0.1',
    port,
    coinsOut: get('DEVCHAIN_COINS_OUT'),
    publicUrl: get('DEVCHAIN_PUBLIC_URL'),
    journalFile: get('DEVCHAIN_JOURNAL'),
  }
}
