// Deposit credit latency over JSON-RPC, with a clean provider and with one failing a fifth of all
// calls: the time from a deposit's block being mined to its credit in the ledger. A service of its
// own runs in the production configuration (EVM_RPC_URL, COINS_FILE, platform keys; its job
// runner started as `npm start` starts it, the default request time limit) against a devnet that
// mines a block every second with automine off, reached through the fault-injecting JSON-RPC
// proxy of the tests (test/helpers/rpc-proxy.ts). Deposits go one at a time, each 1 USDC and a
// little more, from an outside key to one user's custodial address. On PostgreSQL the service gets
// a scratch database on the same server (dropped after); otherwise its own embedded one. A third
// case measures the same while 20 withdrawals of the platform wait for receipts that do not come
// (their broadcasts swallowed by the proxy): waiting for a receipt must hold no job slot the
// deposit watcher needs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { type Hex, parseTransaction } from 'viem'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { type Database, openPGlite, openPostgres } from '../../src/db/index.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { devPrivateKeys, openDevnet } from '../../src/platform/chain/devnet.ts'
import type { ChainAdapter, DevnetControls } from '../../src/platform/chain/types.ts'
import { coinsFileOf } from '../../test/helpers/coins-file.ts'
import { type FaultRule, faults, type RpcProxy, startRpcProxy } from '../../test/helpers/rpc-proxy.ts'
import type { BenchContext, Scenario } from '../lib.ts'

const USDC = 1_000_000n
const BLOCK_MS = 1000

/** the fault mix of the tests (test/settlement/rpc-faults.test.ts), hangs of a second */
const FIFTH_FAILING: FaultRule = {
  method: '*',
  rate: 0.2,
  fault: [
    faults.http500,
    faults.http429,
    faults.rpcError(-32603, 'internal error'),
    faults.rpcError(-32005, 'request limit exceeded'),
    faults.rpcError(-32000, 'header not found'),
    faults.hang(1000),
  ],
}

async function onServer(url: string, query: string) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(query)
  } finally {
    await client.end()
  }
}

interface World {
  node: ChainAdapter & { devnet: DevnetControls }
  proxy: RpcProxy
  app: Awaited<ReturnType<typeof buildApp>>
  database: Database
  userId: string
  token: string
  password: string
  address: string
  close(): Promise<void>
}

async function openWorld(ctx: BenchContext): Promise<World> {
  const node = (await openDevnet(builtinCoinsConfig())) as World['node']
  const proxy = await startRpcProxy(await node.devnet.listen(0), { seed: 37 })
  const dir = mkdtempSync(join(tmpdir(), 'wp-bench-rpc-'))
  writeFileSync(join(dir, 'coins.json'), coinsFileOf(node))
  const keys = devPrivateKeys()
  const config = loadConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    PORT: '0',
    EVM_RPC_URL: proxy.url,
    COINS_FILE: join(dir, 'coins.json'),
    TREASURY_PRIVATE_KEY: keys[18]!,
    GAS_WALLET_PRIVATE_KEY: keys[17]!,
    RATE_LIMIT_WRITES_SCALE: '100000',
  })
  let dropDatabase = async () => {}
  let database: Database
  if (ctx.databaseUrl) {
    const name = `wp_bench_rpc_${Date.now()}`
    await onServer(ctx.databaseUrl, `create database ${name}`)
    const url = new URL(ctx.databaseUrl)
    url.pathname = `/${name}`
    database = openPostgres(url.toString(), config.databasePoolSize)
    dropDatabase = () => onServer(ctx.databaseUrl!, `drop database if exists ${name} with (force)`)
  } else database = await openPGlite({ dataDir: join(dir, 'pg') })
  await migrateToLatest(database.db)
  const app = await buildApp({ config, database, logger: false })
  await app.ready()
  app.services.jobs.start()

  // one user, created and verified through the API as a client would
  const email = `latency${Date.now()}@example.com`
  const password = 'Bench!pass1'
  const reg = await app.inject({
    method: 'POST',
    url: '/v1/auth/create-account',
    payload: { firstName: 'Bench', lastName: 'User', email, password, confirmPassword: password },
  })
  let mail: { text: string } | undefined
  for (let i = 0; i < 200 && !mail; i++) {
    await app.services.jobs.runUntilIdle()
    mail = await database.db
      .selectFrom('mails')
      .select('text')
      .where('toAddress', '=', email)
      .executeTakeFirst()
  }
  const ver = await app.inject({
    method: 'POST',
    url: '/v1/auth/account/verify',
    payload: { token: mail!.text.match(/\b(\d{6})\b/)![1], tempToken: reg.json().data.tempToken.token },
  })
  const token = ver.json().data.token as string
  const me = await app.inject({
    method: 'GET',
    url: '/v1/account',
    headers: { authorization: `Bearer ${token}` },
  })
  const wallet = await app.inject({
    method: 'GET',
    url: '/v1/wallet',
    headers: { authorization: `Bearer ${token}` },
  })

  await node.devnet.fund(node.devnet.accounts[0]!.address, 'usdc', 1_000_000n * USDC)
  await node.devnet.setAutomine(false)
  await node.devnet.setIntervalMining(BLOCK_MS)
  return {
    node,
    proxy,
    app,
    database,
    userId: me.json().data._id,
    token,
    password,
    address: wallet.json().data.wallets[0].address,
    async close() {
      await node.devnet.setIntervalMining(0)
      await app.close()
      await app.services.jobs.stop()
      await database.close()
      await dropDatabase()
      await proxy.close()
      await node.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

/** `count` deposits one at a time; each one's time from its block being mined to its credit */
async function measure(w: World, count: number) {
  const payer = w.node.devnet.accounts[0]!
  const ledger = w.app.services.ledger
  const latencies: number[] = []
  const calls0 = w.proxy.calls()
  const faulted0 = w.proxy.faulted()
  let expected = await ledger.balance(w.database.db, 'user', w.userId, 'usdc')
  for (let i = 0; i < count; i++) {
    const amount = USDC + BigInt(i)
    const signed = await w.node.signTransfer(payer.privateKey, {
      coin: 'usdc',
      to: w.address,
      amount,
      nonce: await w.node.getNonce(payer.address, 'pending'),
    })
    await w.node.broadcast(signed.raw)
    // the devnet itself (not the proxy) says when the block is mined
    while (!(await w.node.getReceipt(signed.hash))) await pause(10)
    const mined = performance.now()
    expected += amount
    const deadline = mined + 120_000
    while ((await ledger.balance(w.database.db, 'user', w.userId, 'usdc')) < expected) {
      if (performance.now() > deadline) throw new Error(`deposit ${i} not credited within 120 s`)
      await pause(10)
    }
    latencies.push(performance.now() - mined)
  }
  const sorted = [...latencies].sort((a, b) => a - b)
  const ms = (v: number) => Math.round(v)
  return {
    deposits: count,
    p50Ms: ms(percentile(sorted, 0.5)),
    p90Ms: ms(percentile(sorted, 0.9)),
    maxMs: ms(sorted[sorted.length - 1]!),
    meanMs: ms(latencies.reduce((a, b) => a + b, 0) / count),
    rpcCalls: w.proxy.calls() - calls0,
    rpcFaults: w.proxy.faulted() - faulted0,
    blockMs: BLOCK_MS,
  }
}

/**
 * Makes `count` withdrawals of AVAX from the user's wallet whose broadcasts the proxy swallows, and
 * waits until each is signed and sent: they then wait for receipts that never come. Answers how to
 * let them through.
 */
async function sendsWaitingForReceipts(w: World, count: number): Promise<() => Promise<void>> {
  const payer = w.node.devnet.accounts[1]!
  const funding = await w.node.signTransfer(payer.privateKey, {
    coin: 'avax',
    to: w.address,
    amount: 10n ** 18n,
    nonce: await w.node.getNonce(payer.address, 'pending'),
  })
  await w.node.broadcast(funding.raw)
  while ((await w.app.services.ledger.balance(w.database.db, 'user', w.userId, 'avax')) < 10n ** 18n)
    await pause(50)
  const withdraw = async (to: string) => {
    const res = await w.app.inject({
      method: 'POST',
      url: '/v1/withdrawals/',
      headers: { authorization: `Bearer ${w.token}` },
      payload: { amount: 0.01, coin: 'avax', address: to, password: w.password },
    })
    if (res.statusCode !== 200) throw new Error(`withdrawal: ${res.body}`)
  }
  const withStatus = async (status: 'sent' | 'completed') =>
    Number(
      (
        await w.database.db
          .selectFrom('outgoingTransfers')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('purpose', '=', 'withdrawal')
          .where('status', '=', status)
          .executeTakeFirstOrThrow()
      ).n,
    )
  // A first withdrawal brings the address gas for all of them (one top-up from the gas wallet).
  w.app.services.outgoing.options.topUpFactor = 100n
  await withdraw(w.node.devnet.accounts[3]!.address)
  while ((await withStatus('completed')) < 1) await pause(100)
  // Then the provider swallows every broadcast to the target: the withdrawals are signed and sent,
  // and wait for receipts that cannot come.
  const target = w.node.devnet.accounts[2]!.address.toLowerCase()
  const drop = w.proxy.add({
    method: 'eth_sendRawTransaction',
    fault: faults.swallow,
    when: (params) => parseTransaction(params[0] as Hex).to?.toLowerCase() === target,
  })
  for (let i = 0; i < count; i++) await withdraw(target)
  const sent = () => withStatus('sent')
  const deadline = performance.now() + 120_000
  while ((await sent()) < count) {
    if (performance.now() > deadline)
      throw new Error(`the ${count} withdrawals were not all sent within 120 s`)
    await pause(100)
  }
  return async () => drop()
}

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const count = ctx.quick ? 1 : 20
  const waiting = ctx.quick ? 5 : 20
  let world: Promise<World> | undefined
  const open = () => (world ??= openWorld(ctx))
  return [
    {
      name: 'deposit credit latency over JSON-RPC, clean provider',
      run: async () => measure(await open(), count),
    },
    {
      name: `deposit credit latency over JSON-RPC, ${waiting} sends waiting for receipts`,
      run: async () => {
        const w = await open()
        const release = await sendsWaitingForReceipts(w, waiting)
        try {
          return { ...(await measure(w, count)), sendsWaiting: waiting }
        } finally {
          await release()
        }
      },
    },
    {
      name: 'deposit credit latency over JSON-RPC, 20 % of calls failing',
      run: async () => {
        const w = await open()
        try {
          w.proxy.add(FIFTH_FAILING)
          return await measure(w, count)
        } finally {
          await w.close()
        }
      },
    },
  ]
}
