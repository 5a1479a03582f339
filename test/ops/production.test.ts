// The production shape compose.yaml runs, as processes on this machine: the dev chain service
// (src/devchain.ts) writing the coins file, then an API process and a worker process with
// NODE_ENV=production over PostgreSQL, Redis, an S3-compatible store (s3rver) and an SMTP relay
// (an in-test SMTP server). Both reach PostgreSQL over its Unix socket, as processes on the
// database's own machine would, each by one of the URL forms an operator may write (the socket
// directory as the URL's host, or as `?host=`), and nothing of theirs connects over TCP. Both are
// ready; a sign-up's code arrives by SMTP (sent by the worker); a deposit on the dev chain is
// credited by the worker's watcher and seen through the API and in the worker's metrics; every
// process stops cleanly on SIGTERM.
import { join } from 'node:path'
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { createPublicClient, createWalletClient, http, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { hardhat } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devPrivateKeys } from '../../src/platform/chain/devnet.ts'
import { startS3 } from '../files/support.ts'
import { PASSWORD, uniqueEmail } from '../helpers/factories.ts'
import { type ScratchPostgres, scratchPostgres } from '../helpers/postgres.ts'
import { freePort, until } from '../main/support.ts'
import { parseExposition, sampleValue } from './prometheus.ts'
import { type Child, getJson, spawnService, stopService, tempDirs } from './support.ts'

const dirs = tempDirs()
/** the dev chain's one line once it serves: its URL in the first group */
const DEVCHAIN_READY = /"msg":"devchain ready","url":"(http:\/\/127\.0\.0\.1:\d+)"/
/** each mail received: its recipients, then its text */
const mails: string[] = []
let smtp: SMTPServer
let s3: Awaited<ReturnType<typeof startS3>>
let devchain: Child
let api: Child
let worker: Child
let database: ScratchPostgres | undefined

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, done) {
      let text = ''
      stream.on('data', (d: Buffer) => {
        text += d.toString()
      })
      stream.on('end', () => {
        simpleParser(text).then(
          (m) => mails.push(`${m.to && 'text' in m.to ? m.to.text : ''}\n${m.text ?? ''}`),
          () => {},
        )
        done()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  s3 = await startS3()
  // production runs on PostgreSQL whatever driver the suite uses
  database = await scratchPostgres('wp_prod')

  const dir = dirs.make()
  const coinsFile = join(dir, 'shared', 'coins.json')
  const rpcPort = await freePort()
  devchain = await spawnService(
    ['--import', 'tsx', 'src/devchain.ts'],
    {
      DEVCHAIN_PORT: String(rpcPort),
      DEVCHAIN_COINS_OUT: coinsFile,
      DEVCHAIN_JOURNAL: join(dir, 'chain', 'journal.jsonl'),
    },
    { listening: DEVCHAIN_READY, started: DEVCHAIN_READY },
  )
  const keys = devPrivateKeys()
  const socket = await database.socketUrls()
  const env = {
    NODE_ENV: 'production',
    JWT_SECRET: 'production-shape-test-secret-0123456789',
    RESERVES_ATTESTATION_KEY: `0x${'55'.repeat(32)}`,
    METRICS_TOKEN: 'production-metrics-token-0123',
    KEY_ENCRYPTION_KEY: '33'.repeat(32),
    SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`,
    EVM_RPC_URL: devchain.baseUrl,
    COINS_FILE: coinsFile,
    TREASURY_PRIVATE_KEY: keys[18]!,
    GAS_WALLET_PRIVATE_KEY: keys[17]!,
    REDIS_URL: 'redis://127.0.0.1:6379',
    ...s3.env,
  }
  const apiPort = await freePort()
  const workerPort = await freePort()
  // the API first: both apply migrations at start, and the second finds them applied
  api = await spawnService(['--import', 'tsx', 'src/main.ts', 'api'], {
    ...env,
    DATABASE_URL: socket.inHost,
    PORT: String(apiPort),
    PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
    WEBAUTHN_ORIGIN: `http://localhost:${apiPort}`,
    WEBAUTHN_RP_ID: 'localhost',
  })
  worker = await spawnService(
    ['--import', 'tsx', 'src/main.ts', 'worker'],
    {
      ...env,
      DATABASE_URL: socket.inQuery,
      WORKER_PORT: String(workerPort),
      PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
      WEBAUTHN_ORIGIN: `http://localhost:${apiPort}`,
      WEBAUTHN_RP_ID: 'localhost',
    },
    { listening: new RegExp(`Server listening at (http://127\\.0\\.0\\.1:${workerPort})`) },
  )
}, 300_000)

afterAll(async () => {
  for (const c of [api, worker, devchain]) if (c) await stopService(c)
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()))
  await s3?.close()
  await database?.drop()
  dirs.cleanup()
})

describe('the production shape (dev chain service, API and worker processes)', () => {
  it('has the API and the worker ready, each checking the parts it needs', async () => {
    const a = await getJson(`${api.baseUrl}/ready`)
    expect(a.status, JSON.stringify(a.body)).toBe(200)
    expect(a.body.data).toEqual({
      database: 'postgres',
      checks: { database: 'ok', chain: 'ok', storage: 'ok', redis: 'ok' },
      haltedCoins: [],
    })
    const w = await getJson(`${worker.baseUrl}/ready`)
    expect(w.status, JSON.stringify(w.body)).toBe(200)
    expect(w.body.data.checks).toEqual({ database: 'ok', chain: 'ok', storage: 'ok', mail: 'ok' })
  })

  it('signs up by the code the worker mails, and credits a deposit made on the dev chain', async () => {
    const email = uniqueEmail('prod')
    const reg = await getJson(`${api.baseUrl}/v1/auth/create-account`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        firstName: 'Pro',
        lastName: 'Duction',
        email,
        password: PASSWORD,
        confirmPassword: PASSWORD,
      }),
    })
    expect(reg.status).toBe(202)
    const code = await until('the code mailed over SMTP', async () =>
      mails
        .filter((m) => m.includes(email))
        .map((m) => /\b(\d{6})\b/.exec(m)?.[1])
        .find(Boolean),
    )
    const verified = await getJson(`${api.baseUrl}/v1/auth/account/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: code, tempToken: reg.body.data.tempToken.token }),
    })
    expect(verified.status, JSON.stringify(verified.body)).toBe(200)
    const auth = { authorization: `Bearer ${verified.body.data.token}` }
    const wallet = await getJson(`${api.baseUrl}/v1/wallet`, { headers: auth })
    const address = wallet.body.data.wallets[0].address

    const account = privateKeyToAccount(devPrivateKeys()[6]!)
    const transport = http(devchain.baseUrl)
    const hash = await createWalletClient({ chain: hardhat, transport }).sendTransaction({
      account,
      to: address,
      value: parseEther('0.75'),
    })
    await createPublicClient({ chain: hardhat, transport }).waitForTransactionReceipt({
      hash,
      pollingInterval: 100,
    })
    await until(
      'the deposit credited by the worker',
      async () => {
        const w = await getJson(`${api.baseUrl}/v1/wallet`, { headers: auth })
        return w.body.data.wallets.find((x: { id: string }) => x.id === 'avax')?.amount === '0.750000'
          ? true
          : undefined
      },
      60_000,
    )
    const metrics = parseExposition(
      await (
        await fetch(`${worker.baseUrl}/metrics`, {
          headers: { authorization: 'Bearer production-metrics-token-0123' },
        })
      ).text(),
    )
    expect(
      sampleValue(metrics, 'workpay_transactions', {
        type: 'deposit',
        method: 'transfer',
        fee: 'none',
        status: 'completed',
        coin: 'avax',
      }),
    ).toBe(1)
    expect(sampleValue(metrics, 'workpay_metrics_source_up', { source: 'chain' })).toBe(1)
  })

  it('has every connection of both processes on the Unix socket, none over TCP', async () => {
    // Asked over TCP: this connection is the only one of the database with a client address.
    const [row] = await database!.query<{ socket: number; tcp: number }>(
      `select count(*) filter (where client_addr is null)::int as socket,
              count(*) filter (where client_addr is not null)::int as tcp
         from pg_stat_activity
        where datname = current_database() and backend_type = 'client backend'
          and pid <> pg_backend_pid()`,
    )
    // Each process holds pooled connections and the ones it listens on (sessions, coins, live).
    expect(row!.tcp).toBe(0)
    expect(row!.socket).toBeGreaterThanOrEqual(4)
  })

  it('stops every process cleanly on SIGTERM', async () => {
    expect(await stopService(api)).toBe(0)
    expect(await stopService(worker)).toBe(0)
    expect(await stopService(devchain)).toBe(0)
    expect(devchain.lines.some((l) => l.includes('devchain stopped'))).toBe(true)
  })
})
