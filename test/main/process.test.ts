// The real entry point as a user runs it (`npm start` = src/main.ts): embedded defaults, data
// that survives a restart (and a dev chain that comes back as the same chain, so no reorg alarm),
// shutdown on SIGTERM that closes the port and ends every process, refusal of a bad or incomplete
// production configuration, and a withdrawal cut by kill -9 that completes after the restart.
// With TEST_DB=postgres the service runs on a PostgreSQL database of its own instead of PGlite.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, createWalletClient, http, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { hardhat } from 'viem/chains'
import { afterAll, describe, expect, it } from 'vitest'
import { devPrivateKeys } from '../../src/platform/chain/devnet.ts'
import { PASSWORD } from '../helpers/factories.ts'
import {
  call,
  exited,
  freePort,
  portClosed,
  processGone,
  reorgAlarms,
  rpc,
  SECRETS,
  serviceDatabase,
  signUp,
  sleep,
  start,
  stop,
  until,
} from './support.ts'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
function dataDir() {
  const d = mkdtempSync(join(tmpdir(), 'wp-main-'))
  dirs.push(d)
  return d
}

/** Pays `ether` AVAX from a dev account to `to` over the dev chain's JSON-RPC. */
async function payFromDevAccount(rpcUrl: string, index: number, to: `0x${string}`, ether: string) {
  const account = privateKeyToAccount(devPrivateKeys()[index]!)
  const wallet = createWalletClient({ chain: hardhat, transport: http(rpcUrl) })
  const chain = createPublicClient({ chain: hardhat, transport: http(rpcUrl) })
  const hash = await wallet.sendTransaction({ account, to, value: parseEther(ether) })
  await chain.waitForTransactionReceipt({ hash, pollingInterval: 100 })
}

async function avaxBalance(base: string, token: string): Promise<string | undefined> {
  const w = await call(base, 'GET', '/v1/wallet', undefined, token)
  expect(w.status).toBe(200)
  return w.body.data.wallets.find((x: { id: string }) => x.id === 'avax')?.amount
}

describe('the service process', () => {
  it('starts with npm start, keeps its data and its chain across a restart, and stops on SIGTERM', {
    timeout: 300_000,
  }, async () => {
    const db = await serviceDatabase()
    const rpcPort = await freePort()
    const rpcUrl = `http://127.0.0.1:${rpcPort}`
    const env = { DATA_DIR: dataDir(), DEVCHAIN_PORT: String(rpcPort), ...db.env }
    try {
      const first = await start(env, { npm: true })
      const ready = await call(first.baseUrl, 'GET', '/ready')
      expect(ready.status).toBe(200)
      expect(ready.body.data.database).toBe(db.kind)

      const { email, token } = await signUp(first)
      // a deposit from outside, credited by the deposit watcher
      const wallet = await call(first.baseUrl, 'GET', '/v1/wallet', undefined, token)
      const address = wallet.body.data.wallets[0].address
      await payFromDevAccount(rpcUrl, 5, address, '1.5')
      await until('the deposit credited', async () =>
        (await avaxBalance(first.baseUrl, token)) === '1.500000' ? true : undefined,
      )

      // SIGTERM to npm: the service shuts down in order, the port closes, no process is left
      expect(first.pid).toBeGreaterThan(0)
      expect(first.pid).not.toBe(first.child.pid)
      expect(await stop(first)).toBe(0)
      expect(await portClosed(first.port)).toBe(true)
      expect(processGone(first.pid)).toBe(true)
      const order = ['shutting down', 'job runner stopped', 'stopped'].map((m) =>
        first.lines.findIndex((l) => l.includes(`"msg":"${m}"`)),
      )
      expect(order.every((i) => i >= 0)).toBe(true)
      expect([...order].sort((a, b) => a - b)).toEqual(order)

      // same data: the account, its session, its balance; the rebuilt chain is the same chain
      const second = await start(env)
      const me = await call(second.baseUrl, 'GET', '/v1/account', undefined, token)
      expect(me.status).toBe(200)
      expect(me.body.data.email).toBe(email)
      const login = await call(second.baseUrl, 'POST', '/v1/auth/login', { email, password: PASSWORD })
      expect(login.status).toBe(200)
      expect(await avaxBalance(second.baseUrl, token)).toBe('1.500000')
      // let the watcher check its cursor against the replayed chain, and pass a new block
      await rpc(rpcUrl, 'hardhat_mine', ['0x2'])
      await sleep(5000)
      expect(await stop(second, 'SIGINT')).toBe(0)
      expect(await portClosed(second.port)).toBe(true)
      expect(reorgAlarms(second.lines)).toEqual([])
      expect(second.lines.some((l) => l.includes('devnet replay'))).toBe(false)
      // no secret in the log: passwords and tokens never appear
      for (const line of [...first.lines, ...second.lines]) {
        expect(line).not.toContain(PASSWORD)
        expect(line).not.toContain(token)
      }
    } finally {
      await db.drop()
    }
  })

  it('refuses a bad configuration with every problem listed', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, DATA_DIR: dataDir(), PORT: 'x', UPLOAD_MAX_BYTES: '-5' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let err = ''
    child.stderr!.on('data', (d) => {
      err += d
    })
    expect(await exited(child)).toBe(2)
    expect(err).toContain('PORT')
    expect(err).toContain('UPLOAD_MAX_BYTES')
  })

  it('in production with only the secrets, exits naming every missing variable and opens nothing', async () => {
    const dir = dataDir()
    const env: Record<string, string> = { PATH: process.env.PATH!, NODE_ENV: 'production', DATA_DIR: dir }
    Object.assign(env, SECRETS)
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout!.on('data', (d) => {
      out += d
    })
    child.stderr!.on('data', (d) => {
      out += d
    })
    const code = await exited(child)
    expect(code).not.toBe(0)
    expect(code).toBe(2)
    for (const name of [
      'DATABASE_URL',
      'PUBLIC_URL',
      'SMTP_URL',
      'EVM_RPC_URL',
      'COINS_FILE',
      'TREASURY_PRIVATE_KEY',
      'GAS_WALLET_PRIVATE_KEY',
      'S3_BUCKET',
      'FILES_DIR',
    ])
      expect(out).toContain(name)
    expect(out).not.toContain(SECRETS.JWT_SECRET)
    // no embedded database, no generated secrets, no dev chain
    expect(readdirSync(dir)).toEqual([])
  })

  it('completes a withdrawal cut by kill -9 within 30 s of the restart, once, with its event once', {
    timeout: 300_000,
  }, async () => {
    const db = await serviceDatabase()
    const rpcPort = await freePort()
    const rpcUrl = `http://127.0.0.1:${rpcPort}`
    const env = { DATA_DIR: dataDir(), DEVCHAIN_PORT: String(rpcPort), ...db.env }
    const chain = createPublicClient({ chain: hardhat, transport: http(rpcUrl) })
    try {
      const first = await start(env)
      const { token } = await signUp(first)
      const wallet = await call(first.baseUrl, 'GET', '/v1/wallet', undefined, token)
      const address = wallet.body.data.wallets[0].address as `0x${string}`
      await payFromDevAccount(rpcUrl, 6, address, '1')
      await until('the deposit credited', async () =>
        (await avaxBalance(first.baseUrl, token)) === '1.000000' ? true : undefined,
      )
      const withdraw = (amount: number, to: string) =>
        call(
          first.baseUrl,
          'POST',
          '/v1/withdrawals/',
          { amount, coin: 'avax', address: to, password: PASSWORD },
          token,
        )
      const list = async (base: string) =>
        (await call(base, 'GET', '/v1/withdrawals/', undefined, token)).body.data.data as {
          _id: string
          status: string
          address: string
        }[]

      // A first withdrawal, on a chain that mines at once: it also brings the address its gas.
      const dest1 = privateKeyToAddress(generatePrivateKey())
      expect((await withdraw(0.1, dest1)).status).toBe(200)
      await until('the first withdrawal completed', async () =>
        (await list(first.baseUrl))[0]?.status === 'completed' ? true : undefined,
      )

      // Now a slow chain: the next transaction waits in the mempool until a block is mined. The
      // process is killed while its withdrawal is signed, stored and broadcast, but not mined.
      await rpc(rpcUrl, 'evm_setAutomine', [false])
      const dest2 = privateKeyToAddress(generatePrivateKey())
      const requested = await withdraw(0.2, dest2)
      expect(requested.status).toBe(200)
      const mined = await chain.getTransactionCount({ address, blockTag: 'latest' })
      await until('the withdrawal broadcast', async () =>
        (await chain.getTransactionCount({ address, blockTag: 'pending' })) > mined ? true : undefined,
      )
      first.child.kill('SIGKILL')
      await exited(first.child)
      expect(first.lines.some((l) => l.includes('shutting down'))).toBe(false)
      expect(await portClosed(first.port)).toBe(true)

      const second = await start(env)
      const restarted = Date.now()
      // the chain mines again
      await rpc(rpcUrl, 'evm_setAutomine', [true])
      await rpc(rpcUrl, 'hardhat_mine', ['0x1'])
      const done = await until(
        'the interrupted withdrawal completed',
        async () => {
          const w = (await list(second.baseUrl)).find((x) => x.address.toLowerCase() === dest2.toLowerCase())
          return w?.status === 'completed' ? w : undefined
        },
        30_000,
      )
      expect(done._id).toBe(requested.body.data.withdrawalId)
      expect(Date.now() - restarted).toBeLessThan(30_000)
      // sent once: the destination holds exactly the amount, the wallet what is left after fees
      expect(await chain.getBalance({ address: dest2 })).toBe(parseEther('0.2'))
      expect(await chain.getBalance({ address: dest1 })).toBe(parseEther('0.1'))
      expect(await avaxBalance(second.baseUrl, token)).toBe('0.698000')
      expect(reorgAlarms(second.lines)).toEqual([])
      // its event, and what is fed from it, exactly once despite the crash: one `new_withdrawal`
      // notification per withdrawal, the interrupted one included
      const sent = await call(
        second.baseUrl,
        'GET',
        '/v1/notifications/?type=new_withdrawal',
        undefined,
        token,
      )
      expect(sent.status).toBe(200)
      const refs = (sent.body.data.notification as { data: string }[]).map((n) => n.data).sort()
      expect(refs).toHaveLength(2)
      expect(refs).toContain(requested.body.data.withdrawalId)
      expect(new Set(refs).size).toBe(2)
      // (A broadcast transfer waits for its receipt as a scheduled check, not as a running job, so
      // the kill may or may not find a job running: either way the check is taken up again, which
      // the completion within 30 s above shows.)
      expect(await stop(second)).toBe(0)
    } finally {
      await db.drop()
    }
  })
})
