// The embedded development chain: Hardhat's in-process EVM (EDR) behind viem. At start it deploys
// the dev tokens from a fixed account (so their addresses never change), funds the platform
// keys, then replays the journal of every state-changing call made before, which rebuilds the
// same balances and history on the same genesis.
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
import { DevnetDownError, toChainError } from './errors.ts'
import { createEvmAdapter } from './evm-adapter.ts'
import { type DevnetRpcServer, type Eip1193, startRpcServer } from './rpc-server.ts'
import {
  type ChainAdapter,
  type ChainCoin,
  ChainError,
  type DevnetControls,
  type DevnetJournal,
  type DevnetJournalEntry,
} from './types.ts'

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk'
/** Hardhat's default accounts: 20, each with 10 000 native coins at genesis */
const DEV_ACCOUNT_COUNT = 20
const DEPLOYER_INDEX = 19
const TREASURY_INDEX = 18
const GAS_WALLET_INDEX = 17
/** whole tokens minted to the treasury at genesis, so payouts and demos have funds */
const TREASURY_TOKEN_FUNDS = 1_000_000n

/** JSON-RPC methods that change chain state: recorded in the journal, replayed at start */
const STATEFUL = new Set([
  'eth_sendRawTransaction',
  'eth_sendTransaction',
  'hardhat_setBalance',
  'hardhat_setCode',
  'hardhat_setNonce',
  'hardhat_setStorageAt',
  'hardhat_mine',
  'evm_mine',
  'evm_setAutomine',
  'evm_increaseTime',
  'evm_setNextBlockTimestamp',
  'hardhat_setNextBlockBaseFeePerGas',
  'hardhat_setCoinbase',
  'hardhat_setMinGasPrice',
  'hardhat_impersonateAccount',
  'hardhat_stopImpersonatingAccount',
  'hardhat_dropTransaction',
])
/** methods that would break the journal (history rewrites) or the process */
const REFUSED = new Set(['evm_snapshot', 'evm_revert', 'hardhat_reset', 'evm_setIntervalMining'])

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
}

/** Serialises state changes so the journal order is the order the node applied them. */
class JournaledProvider implements Eip1193 {
  down = false
  private tail: Promise<unknown> = Promise.resolve()
  constructor(
    private readonly inner: Eip1193,
    private readonly journal: DevnetJournal | undefined,
  ) {}

  async request(args: { method: string; params?: unknown[] }): Promise<unknown> {
    if (this.down) throw new DevnetDownError()
    if (REFUSED.has(args.method))
      throw Object.assign(new Error(`${args.method} is not supported by this devnet`), { code: -32601 })
    if (!STATEFUL.has(args.method)) return this.inner.request(args)
    const run = this.tail.then(async () => {
      const result = await this.inner.request(args)
      await this.journal?.append({ method: args.method, params: args.params ?? [] })
      return result
    })
    this.tail = run.catch(() => {})
    return run
  }

  /** resolves when every state change so far is applied and journaled */
  idle(): Promise<unknown> {
    return this.tail
  }
}

export async function openDevnet(opts: DevnetOptions): Promise<ChainAdapter> {
  const chainId = Number(opts.chain.rpcChainId)
  const { createHardhatRuntimeEnvironment } = await import('hardhat/hre')
  const projectRoot = fileURLToPath(new URL('../../..', import.meta.url))
  const hre = await createHardhatRuntimeEnvironment(
    { networks: { devnet: { type: 'edr-simulated', chainId, chainType: 'l1' } } },
    {},
    projectRoot,
  )
  const connection = await hre.network.create('devnet')
  const inner = connection.provider as unknown as Eip1193
  const keys = devPrivateKeys()
  const deployer = privateKeyToAccount(keys[DEPLOYER_INDEX]!).address
  const treasuryKey = opts.treasuryKey ?? keys[TREASURY_INDEX]!
  const gasWalletKey = opts.gasWalletKey ?? keys[GAS_WALLET_INDEX]!
  const treasury = privateKeyToAccount(treasuryKey).address
  const gasWallet = privateKeyToAccount(gasWalletKey).address

  // Genesis bootstrap, identical at every start (not journaled): tokens at nonces 0..n-1 of the
  // deployer, then the platform keys funded.
  const send = (tx: Record<string, unknown>) => inner.request({ method: 'eth_sendTransaction', params: [tx] })
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

  // Rebuild the state of earlier runs.
  const entries: DevnetJournalEntry[] = opts.journal ? await opts.journal.load() : []
  for (const entry of entries) {
    try {
      await inner.request({ method: entry.method, params: entry.params })
    } catch (err) {
      opts.onWarning?.(`devnet replay: ${entry.method} refused: ${(err as Error).message.split('\n')[0]}`)
    }
  }

  const provider = new JournaledProvider(inner, opts.journal)
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
      await server?.close()
      server = undefined
      // let journal writes in flight finish before the node goes away
      await provider.idle()
      await connection.close()
    },
  })
}
