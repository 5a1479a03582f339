// Picks the chain adapter: JSON-RPC when EVM_RPC_URLS (or EVM_RPC_URL) is set, the embedded devnet
// otherwise.
import { type Config, notInProduction } from '../../config.ts'
import { type CoinsConfig, DEVNET_CHAIN_ID, loadCoinsConfig } from './coins-config.ts'
import { openDevnet, startDevnetEarly } from './devnet.ts'
import type { DevnetCompaction } from './devnet-compactor.ts'
import { openRpc } from './rpc.ts'
import type { ChainAdapter, DevnetJournal } from './types.ts'

export interface OpenChainOptions {
  /** the devnet's journal (the application keeps it in the database) */
  journal?: DevnetJournal
  /** the devnet journal's compaction (the application's readers and its database) */
  compaction?: DevnetCompaction
  onWarning?: (message: string) => void
  onInfo?: (message: string, details: Record<string, unknown>) => void
}

export interface OpenedChain {
  chain: ChainAdapter
  settings: CoinsConfig
}

/**
 * Starts the embedded dev chain's EVM ahead of `openChain` where that is the chain it will open
 * (no EVM_RPC_URL, outside production), so that its start overlaps the database's opening.
 */
export function startChainEarly(config: Config): void {
  if (!config.evmRpcUrl && !config.production) startDevnetEarly(DEVNET_CHAIN_ID)
}

export async function openChain(config: Config, opts: OpenChainOptions = {}): Promise<OpenedChain> {
  if (config.evmRpcUrl) {
    const settings = loadCoinsConfig(config.coinsFile, true)
    const chain = await openRpc({
      url: config.evmRpcUrl,
      chain: settings.chain,
      coins: settings.coins,
      treasuryKey: config.treasuryPrivateKey!,
      gasWalletKey: config.gasWalletPrivateKey!,
      timeoutMs: config.evmRpcTimeoutMs,
      ...(opts.onWarning
        ? {
            onHeadWarning: (message: string, details: Record<string, unknown>) =>
              opts.onWarning!(`${message}: ${JSON.stringify(details)}`),
          }
        : {}),
    })
    return { chain, settings }
  }
  if (config.production) notInProduction('the embedded dev chain (EVM_RPC_URL is not set)')
  const loaded = loadCoinsConfig(config.coinsFile, false)
  // The devnet is always Hardhat's chain id, whatever a COINS_FILE written for production says.
  const settings: CoinsConfig = {
    ...loaded,
    chain: { ...loaded.chain, rpcChainId: String(DEVNET_CHAIN_ID) },
  }
  const chain = await openDevnet({
    chain: settings.chain,
    coins: settings.coins,
    ...(opts.journal ? { journal: opts.journal } : {}),
    ...(opts.compaction ? { compaction: opts.compaction } : {}),
    ...(config.devchainPort !== undefined ? { port: config.devchainPort } : {}),
    ...(config.treasuryPrivateKey ? { treasuryKey: config.treasuryPrivateKey } : {}),
    ...(config.gasWalletPrivateKey ? { gasWalletKey: config.gasWalletPrivateKey } : {}),
    ...(opts.onWarning ? { onWarning: opts.onWarning } : {}),
    ...(opts.onInfo ? { onInfo: opts.onInfo } : {}),
  })
  return { chain, settings }
}

export type { ChainAdapter } from './types.ts'
