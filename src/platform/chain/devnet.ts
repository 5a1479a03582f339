// The embedded development chain: Hardhat's in-process EVM (EDR) behind viem. At start it deploys
// the dev tokens from a fixed account (so their addresses never change), funds the platform
// keys, then replays the journal of every state-changing call made before, which rebuilds the
// same balances, history and block hashes on the same genesis (see devnet-bootstrap.ts and
// devnet-journal.ts). With a compaction, the journal is compacted every so many blocks and the
// live EVM rebuilt from it and swapped in, so that neither a start nor the running process grows
// with the blocks ever mined (devnet-compactor.ts, devnet-swap.ts).
import {
  type Address,
  createPublicClient,
  custom,
  defineChain,
  encodeFunctionData,
  getAddress,
  type Hex,
  type PublicClient,
  toHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { ChainSettings, CoinSettings } from './coins-config.ts'
import {
  buildChain,
  devnetKeys,
  devTokenAddress,
  freeDevAccounts,
  MINT_ABI,
  takeEngine,
} from './devnet-bootstrap.ts'
import { isState } from './devnet-compaction.ts'
import { type DevnetCompaction, rebaseAfterReplay, startCompactor } from './devnet-compactor.ts'
import { JournaledProvider } from './devnet-journal.ts'
import { LiveNode } from './devnet-live.ts'
import { swapEvm, swapWorth } from './devnet-swap.ts'
import { toChainError } from './errors.ts'
import { createEvmAdapter } from './evm-adapter.ts'
import { type DevnetRpcServer, startRpcServer } from './rpc-server.ts'
import { type ChainAdapter, ChainError, type DevnetControls, type DevnetJournal } from './types.ts'

export {
  DEV_MNEMONIC,
  type DevnetEngine,
  devPrivateKeys,
  devTokenAddress,
  startDevnetEarly,
} from './devnet-bootstrap.ts'

export interface DevnetOptions {
  chain: ChainSettings
  coins: CoinSettings[]
  /** where state changes are recorded for the next start; none = state is lost on close */
  journal?: DevnetJournal
  /** start the loopback JSON-RPC server on this port (0 = any free port) */
  port?: number
  /** platform keys; default: dev accounts 18 (treasury) and 17 (gas wallet) */
  treasuryKey?: Hex
  gasWalletKey?: Hex
  /** warnings during replay (a journaled call the node now refuses) */
  onWarning?: (message: string) => void
  /** what the devnet did that an operator may want to know (a compaction of its journal) */
  onInfo?: (message: string, details: Record<string, unknown>) => void
  /** compacts the journal below what the service's readers are done with (needs `journal`) */
  compaction?: DevnetCompaction
}

export async function openDevnet(opts: DevnetOptions): Promise<ChainAdapter> {
  const chainId = Number(opts.chain.rpcChainId)
  const engine = await takeEngine(chainId)
  const live = new LiveNode(engine)
  const { treasuryKey, gasWalletKey, keys } = devnetKeys(opts.treasuryKey, opts.gasWalletKey)
  const { deployer } = keys

  // The genesis bootstrap, then the state of earlier runs, block for block, then the clock.
  let entries = opts.journal ? await opts.journal.load() : []
  const { coins, bootHead, snapshotIds } = await buildChain(engine.provider, {
    coins: opts.coins,
    keys,
    entries,
    onWarning: opts.onWarning,
  })
  const chainKey = String(chainId)
  if (opts.compaction && opts.journal)
    entries = await rebaseAfterReplay(chainKey, opts.compaction, engine.provider, entries)

  const provider = new JournaledProvider(live, opts.journal, snapshotIds)
  provider.entries = entries
  const known: Address[] = [
    ...keys.keys.map((k) => privateKeyToAccount(k).address),
    deployer,
    keys.treasury,
    keys.gasWallet,
  ]
  const tokens = opts.coins.filter((c) => c.isToken).map((_, i) => devTokenAddress(i))
  const journal = opts.journal
  /** the base of the state the running EVM was built from (its blocks below it are reserved, cheap) */
  let builtFrom = isState(entries[0]) ? BigInt(entries[0].params[0].base) : bootHead
  /** the live EVM rebuilt from the compacted journal and swapped in (devnet-swap.ts), in the turn */
  const swapNow = () => {
    if (!journal) throw new ChainError('INVALID_ARGUMENT', 'a devnet without a journal is not rebuilt')
    return swapEvm({ live, provider, journal, coins: opts.coins, keys, known, tokens }).then((done) => {
      builtFrom = done.base
      return done
    })
  }
  const swapLogged = async () => {
    try {
      const head = BigInt((await live.request({ method: 'eth_blockNumber' })) as Hex)
      const worth = swapWorth(provider.entries, head, builtFrom, opts.compaction?.swapBlocksPerCarried ?? 1)
      if (!worth.worth) {
        opts.onInfo?.('devnet EVM kept: a rebuild would carry more than it lets go', worth)
        return
      }
      const done = await swapNow()
      opts.onInfo?.('devnet EVM rebuilt from the compacted journal and swapped in', {
        head: Number(done.head),
        base: Number(done.base),
        entries: done.entries,
        shownHashes: done.shownHashes,
        ms: done.ms,
      })
    } catch (err) {
      opts.onWarning?.(`devnet EVM not swapped (the running one is kept): ${String(err)}`)
    }
  }
  const compactor =
    opts.compaction && journal
      ? startCompactor({
          chainId: chainKey,
          port: opts.compaction,
          node: live,
          provider,
          bootBlocks: bootHead,
          known,
          tokens,
          onWarning: opts.onWarning,
          onInfo: opts.onInfo,
          ...(opts.compaction.swapEvm === false ? {} : { afterCompaction: swapLogged }),
        })
      : undefined
  let server: DevnetRpcServer | undefined
  const rpcUrls = () => (server ? [server.url, ...opts.chain.rpcUrls] : opts.chain.rpcUrls)
  const nativeCurrency = {
    name: opts.chain.rpcNativeCurrency.name,
    symbol: opts.chain.rpcNativeCurrency.symbol,
    decimals: Number(opts.chain.rpcNativeCurrency.decimals),
  }
  const chain = defineChain({
    id: chainId,
    name: opts.chain.rpcName,
    nativeCurrency,
    rpcUrls: { default: { http: ['http://127.0.0.1:8545'] } },
  })
  const client = createPublicClient({
    chain,
    transport: custom(provider, { retryCount: 0 }),
    // no batching or polling cache: the devnet answers at once and tests read right after writes
    cacheTime: 0,
    pollingInterval: 50,
  }) as PublicClient

  const accounts = freeDevAccounts()

  const guard = async (what: string, fn: () => Promise<unknown>) => {
    try {
      await fn()
    } catch (err) {
      throw toChainError(err, what)
    }
  }
  const tokenOf = (reference: string) => {
    const c = coins.find((x) => x.reference === reference.toLowerCase())
    if (!c) throw new ChainError('UNKNOWN_COIN', `unknown coin "${reference}"`)
    return c
  }

  const devnet: DevnetControls = {
    accounts,
    get rpcUrl() {
      return server?.url
    },
    async listen(port = 0) {
      if (!server) server = await startRpcServer(provider, port, () => provider.down)
      return server.url
    },
    mine: (blocks = 1) =>
      guard('mine', () => provider.request({ method: 'hardhat_mine', params: [toHex(blocks)] })),
    setAutomine: (on) =>
      guard('automine', () => provider.request({ method: 'evm_setAutomine', params: [on] })),
    async snapshot() {
      let id: Hex | undefined
      await guard('snapshot', async () => {
        id = (await provider.request({ method: 'evm_snapshot', params: [] })) as Hex
      })
      return id!
    },
    async revert(id) {
      let reverted = false
      await guard('revert', async () => {
        reverted = (await provider.request({ method: 'evm_revert', params: [id] })) === true
      })
      return reverted
    },
    setIntervalMining: (ms) =>
      guard('interval mining', () => provider.request({ method: 'evm_setIntervalMining', params: [ms] })),
    setNextBaseFee: (wei) =>
      guard('base fee', () =>
        provider.request({ method: 'hardhat_setNextBlockBaseFeePerGas', params: [toHex(wei)] }),
      ),
    async fund(address, reference, amount) {
      const c = tokenOf(reference)
      const to = getAddress(address)
      if (amount < 0n) throw new ChainError('INVALID_ARGUMENT', 'amount must not be negative')
      if (!c.isToken) {
        await guard('fund', async () => {
          const current = BigInt(
            (await provider.request({ method: 'eth_getBalance', params: [to, 'latest'] })) as Hex,
          )
          await provider.request({ method: 'hardhat_setBalance', params: [to, toHex(current + amount)] })
        })
        return
      }
      await guard('fund', () =>
        provider.request({
          method: 'eth_sendTransaction',
          params: [
            {
              from: deployer,
              to: c.contractAddress,
              data: encodeFunctionData({ abi: MINT_ABI, functionName: 'mint', args: [to, amount] }),
            },
          ],
        }),
      )
    },
    setDown(down) {
      provider.down = down
    },
    refuse(method, error) {
      if (error) provider.refusals.set(method, error)
      else provider.refusals.delete(method)
    },
    compact: async () => (compactor ? compactor.compact() : null),
    rebuild: () => provider.exclusive(swapNow),
  }

  if (opts.port !== undefined) await devnet.listen(opts.port)

  return createEvmAdapter({
    kind: 'devnet',
    chain,
    get info() {
      return {
        chainId,
        name: opts.chain.rpcName,
        rpcUrls: rpcUrls(),
        blockExplorerUrls: opts.chain.blockExplorerUrls,
        nativeCurrency,
      }
    },
    client,
    coins,
    treasuryKey,
    gasWalletKey,
    devnet,
    async onClose() {
      provider.stopIntervalMining()
      await server?.close()
      server = undefined
      // let journal writes in flight finish before the node goes away
      await provider.idle()
      // what the readers are done with by now is not replayed at the next start
      await compactor
        ?.compactIfWorth()
        .catch((err) => opts.onWarning?.(`devnet compaction at close failed: ${String(err)}`))
      await live.close()
    },
  })
}
