// The embedded dev chain's genesis, identical at every start and at every rebuild of its EVM: the
// dev accounts of the standard test mnemonic, the dev tokens deployed from a fixed account (so
// their addresses never change), the platform keys funded; then the journal of earlier runs
// replayed on top (see devnet-journal.ts) and the clock caught up. Hardhat's EDR runs the EVM.
import { pbkdf2Sync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { type Address, encodeDeployData, encodeFunctionData, getContractAddress, type Hex, toHex } from 'viem'
import { HDKey, privateKeyToAccount } from 'viem/accounts'
import type { CoinSettings } from './coins-config.ts'
import { catchUpClock, replayJournal } from './devnet-journal.ts'
import type { Eip1193 } from './rpc-server.ts'
import type { ChainCoin, DevnetJournalEntry } from './types.ts'

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
export const MINT_ABI = [
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

/** A devnet's EVM (Hardhat's EDR, in process) at its empty genesis: nothing of ours in it yet. */
export interface DevnetEngine {
  provider: Eip1193
  close(): Promise<void>
  /** another EVM of the same chain, at its own empty genesis (the same Hardhat runtime) */
  another(): Promise<DevnetEngine>
}

export async function startEngine(chainId: number): Promise<DevnetEngine> {
  const { createHardhatRuntimeEnvironment } = await import('hardhat/hre')
  const projectRoot = fileURLToPath(new URL('../../..', import.meta.url))
  const hre = await createHardhatRuntimeEnvironment(
    { networks: { devnet: { type: 'edr-simulated', chainId, chainType: 'l1', initialDate: GENESIS_DATE } } },
    {},
    projectRoot,
  )
  const connect = async (): Promise<DevnetEngine> => {
    // `create` makes a new EVM each time
    const connection = await hre.network.create('devnet')
    return {
      provider: connection.provider as unknown as Eip1193,
      close: () => connection.close(),
      another: connect,
    }
  }
  return connect()
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

/** The EVM started early for this chain id, or a new one (one started for another chain is closed). */
export function takeEngine(chainId: number): Promise<DevnetEngine> {
  const taken = early?.chainId === chainId ? early.engine : undefined
  if (early && !taken) void early.engine.then((e) => e.close()).catch(() => {})
  early = undefined
  return taken ?? startEngine(chainId)
}

/** The dev chain's fixed accounts: the test mnemonic's keys, the deployer and the platform keys. */
export interface DevnetKeys {
  keys: Hex[]
  deployer: Address
  treasury: Address
  gasWallet: Address
}

export function devnetKeys(treasuryKey: Hex | undefined, gasWalletKey: Hex | undefined) {
  const keys = devPrivateKeys()
  const treasury = treasuryKey ?? keys[TREASURY_INDEX]!
  const gasWallet = gasWalletKey ?? keys[GAS_WALLET_INDEX]!
  return {
    treasuryKey: treasury,
    gasWalletKey: gasWallet,
    keys: {
      keys,
      deployer: privateKeyToAccount(keys[DEPLOYER_INDEX]!).address,
      treasury: privateKeyToAccount(treasury).address,
      gasWallet: privateKeyToAccount(gasWallet).address,
    } satisfies DevnetKeys,
  }
}

/** the dev accounts free for tests and scripts (the deployer and platform keys left out) */
export function freeDevAccounts(): { address: Address; privateKey: Hex }[] {
  const reserved = new Set([DEPLOYER_INDEX, TREASURY_INDEX, GAS_WALLET_INDEX])
  return devPrivateKeys()
    .map((privateKey, i) => ({ i, privateKey, address: privateKeyToAccount(privateKey).address }))
    .filter((a) => !reserved.has(a.i))
    .map(({ address, privateKey }) => ({ address, privateKey }))
}

/**
 * Genesis bootstrap, identical at every start (not journaled): tokens at nonces 0..n-1 of the
 * deployer, then the platform keys funded, each block at a fixed time after genesis.
 */
async function bootstrap(inner: Eip1193, settings: CoinSettings[], k: DevnetKeys): Promise<ChainCoin[]> {
  const { keys, deployer, treasury, gasWallet } = k
  let bootBlocks = 0
  const send = async (tx: Record<string, unknown>) => {
    bootBlocks++
    await inner.request({ method: 'evm_setNextBlockTimestamp', params: [GENESIS_SECONDS + bootBlocks] })
    return inner.request({ method: 'eth_sendTransaction', params: [tx] })
  }
  const tokenCoins = settings.filter((c) => c.isToken)
  const coins: ChainCoin[] = []
  let tokenIndex = 0
  for (const c of settings) {
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
    if (!keys.some((key) => privateKeyToAccount(key).address === address))
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
  return coins
}

/** A devnet's EVM with our genesis and the journal replayed: what a start builds, and a rebuild. */
export interface BuiltChain {
  coins: ChainCoin[]
  /** the bootstrap's height (the blocks of every start, not journaled) */
  bootHead: bigint
  /** journaled snapshot ids → the ids this EVM gave the same snapshots */
  snapshotIds: Map<string, string>
}

/**
 * Bootstraps `node` (an EVM at its empty genesis), replays `entries` on it, then moves its clock
 * forward to `nowSeconds` (never back): the same path for a start and for a rebuild of the EVM.
 */
export async function buildChain(
  node: Eip1193,
  o: {
    coins: CoinSettings[]
    keys: DevnetKeys
    entries: DevnetJournalEntry[]
    onWarning?: ((message: string) => void) | undefined
    nowSeconds?: number
  },
): Promise<BuiltChain> {
  const coins = await bootstrap(node, o.coins, o.keys)
  const bootHead = BigInt((await node.request({ method: 'eth_blockNumber' })) as Hex)
  const snapshotIds = await replayJournal(node, o.entries, o.onWarning)
  await catchUpClock(node, o.nowSeconds)
  return { coins, bootHead, snapshotIds }
}
