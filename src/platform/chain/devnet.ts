// The embedded development chain: Hardhat's in-process EVM (EDR) behind viem. At start it deploys
// the dev tokens from a fixed account (so their addresses never change), funds the platform
// keys, then replays the journal of every state-changing call made before, which rebuilds the
// same balances, history and block hashes on the same genesis (see devnet-journal.ts).
import { pbkdf2Sync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  type Address,
  createPublicClient,
  custom,
  defineChain,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  type PublicClient,
  toHex,
} from 'viem'
import { HDKey, privateKeyToAccount } from 'viem/accounts'
import type { ChainSettings, CoinSettings } from './coins-config.ts'
import { type DevnetCompaction, rebaseAfterReplay, startCompactor } from './devnet-compactor.ts'
import { catchUpClock, JournaledProvider, replayJournal } from './devnet-journal.ts'
import { toChainError } from './errors.ts'
import { createEvmAdapter } from './evm-adapter.ts'
import { type DevnetRpcServer, type Eip1193, startRpcServer } from './rpc-server.ts'
import {
  type ChainAdapter,
  type ChainCoin,
  ChainError,
  type DevnetControls,
  type DevnetJournal,
} from './types.ts'

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk'
/** Hardhat's default accounts: 20, each with 10 000 native coins at genesis */
const DEV_ACCOUNT_COUNT = 20
const DEPLOYER_INDEX = 19
const TREASURY_INDEX = 18
const GAS_WALLET_INDEX = 17
/** whole tokens minted to the treasury at genesis, so payouts and demos have funds */
const TREASURY_TOKEN_FUNDS = 1_000_000n

/** Genesis time, fixed so that every start builds the same genesis block (same hash). */
const GENESIS_DATE = new Date('2024-01-01T00:00:00Z')
const GENESIS_SECONDS = GENESIS_DATE.getTime() / 1000

const TOKEN_ARTIFACT = JSON.parse(
  readFileSync(fileURLToPath(new URL('./contracts/DevToken.json', import.meta.url)), 'utf8'),
) as { abi: readonly unknown[]; bytecode: Hex }
const MINT_ABI = [
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [],
  },
] as const
const CONSTRUCTOR_ABI = [
  {
    type: 'constructor',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'name_', type: 'string' },
      { name: 'symbol_', type: 'string' },
      { name: 'decimals_', type: 'uint8' },
    ],
  },
] as const

let devKeysCache: Hex[] | undefined
/** the private keys of the standard test mnemonic (BIP-39 seed by PBKDF2, BIP-44 path) */
export function devPrivateKeys(): Hex[] {
  if (devKeysCache) return devKeysCache
  const seed = pbkdf2Sync(DEV_MNEMONIC.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512')
  const parent = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0")
  devKeysCache = Array.from({ length: DEV_ACCOUNT_COUNT }, (_, i) => toHex(parent.deriveChild(i).privateKey!))
  return devKeysCache
}

/** the deterministic address of the i-th token the devnet deploys */
export function devTokenAddress(index: number): Address {
  const deployer = privateKeyToAccount(devPrivateKeys()[DEPLOYER_INDEX]!).address
  return getContractAddress({ from: deployer, nonce: BigInt(index) })
}

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

/** A devnet's EVM (Hardhat's EDR, in process) at its empty genesis: nothing of ours in it yet. */
export interface DevnetEngine {
  provider: Eip1193
  close(): Promise<void>
}

async function startEngine(chainId: number): Promise<DevnetEngine> {
  const { createHardhatRuntimeEnvironment } = await import('hardhat/hre')
  const projectRoot = fileURLToPath(new URL('../../..', import.meta.url))
  const hre = await createHardhatRuntimeEnvironment(
    { networks: { devnet: { type: 'edr-simulated', chainId, chainType: 'l1', initialDate: GENESIS_DATE } } },
    {},
    projectRoot,
  )
  const connection = await hre.network.create('devnet')
  return { provider: connection.provider as unknown as Eip1193, close: () => connection.close() }
}

let early: { chainId: number; engine: Promise<DevnetEngine> } | undefined

/**
 * Starts the EVM of the process's next devnet now (loading Hardhat and creating the EVM take most
 * of a second), so that it overlaps the rest of the process's start-up; the next `openDevnet` of
 * this chain id takes it, and a failure to start it is that call's (answered here too).
 */
export function startDevnetEarly(chainId: number): Promise<DevnetEngine> {
  const engine = startEngine(chainId)
  engine.catch(() => {})
  early = { chainId, engine }
  return engine
}

export async function openDevnet(opts: DevnetOptions): Promise<ChainAdapter> {
  const chainId = Number(opts.chain.rpcChainId)
  const taken = early?.chainId === chainId ? early.engine : undefined
  // One started for another chain is not this one's: it is closed.
  if (early && !taken) void early.engine.then((e) => e.close()).catch(() => {})
  early = undefined
  const engine = await (taken ?? startEngine(chainId))
  const inner = engine.provider
  const keys = devPrivateKeys()
  const deployer = privateKeyToAccount(keys[DEPLOYER_INDEX]!).address
  const treasuryKey = opts.treasuryKey ?? keys[TREASURY_INDEX]!
  const gasWalletKey = opts.gasWalletKey ?? keys[GAS_WALLET_INDEX]!
  const treasury = privateKeyToAccount(treasuryKey).address
  const gasWallet = privateKeyToAccount(gasWalletKey).address

  // Genesis bootstrap, identical at every start (not journaled): tokens at nonces 0..n-1 of the
  // deployer, then the platform keys funded, each block at a fixed time after genesis.
  let bootBlocks = 0
  const send = async (tx: Record<string, unknown>) => {
    bootBlocks++
    await inner.request({ method: 'evm_setNextBlockTimestamp', params: [GENESIS_SECONDS + bootBlocks] })
    return inner.request({ method: 'eth_sendTransaction', params: [tx] })
  }
  const tokenCoins = opts.coins.filter((c) => c.isToken)
  const coins: ChainCoin[] = []
  let tokenIndex = 0
  for (const c of opts.coins) {
    let contractAddress: Address | null = null
    if (c.isToken) {
      contractAddress = devTokenAddress(tokenIndex)
      await send({
        from: deployer,
        nonce: toHex(tokenIndex),
        data: encodeDeployData({
          abi: CONSTRUCTOR_ABI,
          bytecode: TOKEN_ARTIFACT.bytecode,
          args: [c.name, c.symbol, c.decimal],
        }),
      })
      tokenIndex++
    }
    coins.push({
      reference: c.reference,
      name: c.name,
      symbol: c.symbol,
      icon: c.icon,
      decimals: c.decimal,
      isToken: c.isToken,
      contractAddress,
      order: c.order,
      active: c.active,
      usdRate: c.usdRate,
      ...(c.maxFeePerGas === undefined ? {} : { maxFeePerGas: c.maxFeePerGas }),
    })
  }
  const tenThousand = toHex(10_000n * 10n ** 18n)
  for (const address of [treasury, gasWallet]) {
    if (!keys.some((k) => privateKeyToAccount(k).address === address))
      await inner.request({ method: 'hardhat_setBalance', params: [address, tenThousand] })
  }
  for (const [i, c] of tokenCoins.entries()) {
    await send({
      from: deployer,
      to: devTokenAddress(i),
      data: encodeFunctionData({
        abi: MINT_ABI,
        functionName: 'mint',
        args: [treasury, TREASURY_TOKEN_FUNDS * 10n ** BigInt(c.decimal)],
      }),
    })
  }

  // Rebuild the state of earlier runs, block for block, then let the clock catch up.
  const bootHead = BigInt((await inner.request({ method: 'eth_blockNumber' })) as Hex)
  let entries = opts.journal ? await opts.journal.load() : []
  const snapshotIds = await replayJournal(inner, entries, opts.onWarning)
  await catchUpClock(inner)
  const chainKey = String(chainId)
  if (opts.compaction && opts.journal)
    entries = await rebaseAfterReplay(chainKey, opts.compaction, inner, entries)

  const provider = new JournaledProvider(inner, opts.journal, snapshotIds)
  provider.entries = entries
  const compactor =
    opts.compaction && opts.journal
      ? startCompactor({
          chainId: chainKey,
          port: opts.compaction,
          node: inner,
          provider,
          bootBlocks: bootHead,
          known: [...keys.map((k) => privateKeyToAccount(k).address), deployer, treasury, gasWallet],
          tokens: tokenCoins.map((_, i) => devTokenAddress(i)),
          onWarning: opts.onWarning,
          onInfo: opts.onInfo,
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

  const reserved = new Set([DEPLOYER_INDEX, TREASURY_INDEX, GAS_WALLET_INDEX])
  const accounts = keys
    .map((privateKey, i) => ({ i, privateKey, address: privateKeyToAccount(privateKey).address }))
    .filter((a) => !reserved.has(a.i))
    .map(({ address, privateKey }) => ({ address, privateKey }))

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
      await engine.close()
    },
  })
}
