// Steps of the tests of coins added at run time: ERC-20 contracts deployed on the app's dev chain
// from a dev account (the same contract the dev chain deploys its USDC with), token payments sent
// outside the platform, and a second app instance on the same database that reaches the same chain
// over JSON-RPC, as another process of a deployment does.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { type Address, createWalletClient, custom, getContractAddress, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { devPrivateKeys } from '../../src/platform/chain/devnet.ts'
import { TEST_ENV, type TestApp } from '../helpers/app.ts'

const ARTIFACT = JSON.parse(
  readFileSync(new URL('../../src/platform/chain/contracts/DevToken.json', import.meta.url), 'utf8'),
) as { abi: readonly unknown[]; bytecode: Hex }

/** A contract whose code is a single STOP: it has code, but answers no ERC-20 call. */
const NOT_A_TOKEN: Hex = '0x6001600c60003960016000f300'

type Key = { address: Address; privateKey: Hex }

function walletOf(t: TestApp, key: Key) {
  const chain = t.app.services.chain
  return createWalletClient({
    account: privateKeyToAccount(key.privateKey),
    chain: chain.chain,
    transport: custom({ request: (args) => chain.client.request(args as never) }),
  })
}

async function mined(t: TestApp, hash: Hex) {
  const receipt = await t.app.services.chain.waitForReceipt(hash)
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`)
}

/** Deploys an ERC-20 token from `owner` (who alone may mint); its address. */
export async function deployToken(
  t: TestApp,
  owner: Key,
  token: { name: string; symbol: string; decimals: number },
): Promise<Address> {
  const nonce = await t.app.services.chain.getNonce(owner.address, 'pending')
  const hash = await walletOf(t, owner).deployContract({
    abi: ARTIFACT.abi,
    bytecode: ARTIFACT.bytecode,
    args: [token.name, token.symbol, token.decimals],
    nonce,
  })
  await mined(t, hash)
  return getContractAddress({ from: owner.address, nonce: BigInt(nonce) })
}

/** Deploys a contract that is no token. */
export async function deployNotAToken(t: TestApp, owner: Key): Promise<Address> {
  const nonce = await t.app.services.chain.getNonce(owner.address, 'pending')
  const hash = await walletOf(t, owner).sendTransaction({ data: NOT_A_TOKEN, nonce, to: null })
  await mined(t, hash)
  return getContractAddress({ from: owner.address, nonce: BigInt(nonce) })
}

/** Mints `amount` base units of the token to `to` (only its owner can). */
export async function mint(t: TestApp, owner: Key, token: Address, to: Address, amount: bigint) {
  const hash = await walletOf(t, owner).writeContract({
    address: token,
    abi: ARTIFACT.abi,
    functionName: 'mint',
    args: [to, amount],
  })
  await mined(t, hash)
}

/** Sends `amount` base units of the token from `from`, outside the platform. */
export async function payToken(t: TestApp, from: Key, token: Address, to: Address, amount: bigint) {
  const hash = await walletOf(t, from).writeContract({
    address: token,
    abi: ARTIFACT.abi,
    functionName: 'transfer',
    args: [to, amount],
  })
  await mined(t, hash)
}

export interface SecondApp {
  app: FastifyInstance
  close(): Promise<void>
}

/**
 * Another instance of the service on the database of `t`: its own chain adapter (JSON-RPC to the
 * dev chain of `t`), coin registry and notification listeners, with the configuration's coins
 * only, as a process started before a coin was added.
 */
export async function openSecondApp(t: TestApp, env: Record<string, string>): Promise<SecondApp> {
  const chain = t.app.services.chain
  const url = chain.devnet!.rpcUrl ?? (await chain.devnet!.listen(0))
  const dir = mkdtempSync(join(tmpdir(), 'wp-second-app-'))
  const builtin = builtinCoinsConfig()
  const coinsFile = join(dir, 'coins.json')
  writeFileSync(
    coinsFile,
    JSON.stringify({
      chain: builtin.chain,
      coins: builtin.coins.map((c) => ({ ...c, contractAddress: chain.coin(c.reference).contractAddress })),
    }),
  )
  const keys = devPrivateKeys()
  const config = loadConfig({
    ...TEST_ENV,
    ...env,
    DATA_DIR: dir,
    EVM_RPC_URL: url,
    COINS_FILE: coinsFile,
    // the dev chain's treasury and gas wallet: the platform's keys in both instances
    TREASURY_PRIVATE_KEY: keys[18]!,
    GAS_WALLET_PRIVATE_KEY: keys[17]!,
  })
  const app = await buildApp({ config, database: t.database, clock: t.clock, logger: false })
  await app.ready()
  return {
    app,
    async close() {
      await app.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
