// The worker process (`main.ts worker`) with WORKER_PORT serves /health, /ready and /metrics (and
// nothing else) on its own port. Its readiness covers the database, the chain endpoint, the object
// store and the mail relay, each within READY_TIMEOUT_MS, and names what fails: here the chain, a
// standalone dev chain reached over JSON-RPC that goes down, comes back, then is stopped.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { devPrivateKeys, openDevnet } from '../../src/platform/chain/devnet.ts'
import type { ChainAdapter, DevnetControls } from '../../src/platform/chain/types.ts'
import { freePort, portClosed, serviceDatabase } from '../main/support.ts'
import { parseExposition } from './prometheus.ts'
import { type Child, getJson, spawnService, stopService, tempDirs } from './support.ts'

const dirs = tempDirs()
let node: ChainAdapter & { devnet: DevnetControls }
let smtp: SMTPServer
let worker: Child
let drop: () => Promise<void> = async () => {}
let nodeClosed = false
let metricsHeaders: Record<string, string> = {}

/** The coins file a production process reads: the built-in coins at the addresses the node deployed. */
function coinsFile(dir: string): string {
  const file = join(dir, 'coins.json')
  const builtin = builtinCoinsConfig()
  writeFileSync(
    file,
    JSON.stringify({
      chain: builtin.chain,
      coins: node.coins.map((c) => ({
        name: c.name,
        symbol: c.symbol,
        reference: c.reference,
        icon: c.icon,
        decimal: c.decimals,
        isToken: c.isToken,
        ...(c.contractAddress ? { contractAddress: c.contractAddress } : {}),
        order: c.order,
        active: c.active,
        usdRate: c.usdRate,
      })),
    }),
  )
  return file
}

beforeAll(async () => {
  node = (await openDevnet(builtinCoinsConfig())) as typeof node
  const rpcUrl = await node.devnet.listen(0)
  smtp = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], logger: false })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  const smtpPort = (smtp.server.address() as { port: number }).port
  const db = await serviceDatabase()
  // (on PostgreSQL the service's secrets include METRICS_TOKEN: /metrics then needs it)
  metricsHeaders = db.env.METRICS_TOKEN ? { authorization: `Bearer ${db.env.METRICS_TOKEN}` } : {}
  drop = db.drop
  const dir = dirs.make()
  const keys = devPrivateKeys()
  const opsPort = await freePort()
  worker = await spawnService(
    ['--import', 'tsx', 'src/main.ts', 'worker'],
    {
      DATA_DIR: dir,
      WORKER_PORT: String(opsPort),
      READY_TIMEOUT_MS: '1500',
      EVM_RPC_URL: rpcUrl,
      COINS_FILE: coinsFile(dir),
      TREASURY_PRIVATE_KEY: keys[18]!,
      GAS_WALLET_PRIVATE_KEY: keys[17]!,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      ...db.env,
    },
    { listening: new RegExp(`Server listening at (http://127\\.0\\.0\\.1:${opsPort})`) },
  )
}, 180_000)

afterAll(async () => {
  if (worker) await stopService(worker)
  if (!nodeClosed) await node?.close()
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()))
  await drop()
  dirs.cleanup()
})

describe('the worker process on WORKER_PORT', () => {
  it('is ready when the database, the chain, the object store and the mail relay answer', async () => {
    const health = await getJson(`${worker.baseUrl}/health`)
    expect(health.status).toBe(200)
    expect(health.body).toMatchObject({ status: 'success', message: 'ok' })
    const ready = await getJson(`${worker.baseUrl}/ready`)
    expect(ready.status, JSON.stringify(ready.body)).toBe(200)
    expect(ready.body.data.checks).toEqual({ database: 'ok', chain: 'ok', storage: 'ok', mail: 'ok' })
  })

  it('serves its metrics, and no API route', async () => {
    const res = await fetch(`${worker.baseUrl}/metrics`, { headers: metricsHeaders })
    expect(res.status).toBe(200)
    const samples = parseExposition(await res.text())
    expect(samples.find((s) => s.name === 'workpay_chain_head_block')?.value).toBeGreaterThan(0)
    expect(samples.some((s) => s.name === 'process_resident_memory_bytes')).toBe(true)
    const api = await getJson(`${worker.baseUrl}/v1/payment/coins`)
    expect(api.status).toBe(404)
    expect(api.body).toMatchObject({ status: 'error', data: { code: 'NOT_FOUND' } })
    const malformed = await getJson(`${worker.baseUrl}/ready/%E0%A4%A`)
    expect(malformed.status).toBe(400)
    expect(malformed.body).toMatchObject({ status: 'error', data: { code: 'VALIDATION_ERROR' } })
  })

  it('runs the background jobs without building the HTTP app: the deposit watcher follows the chain', async () => {
    const started = worker.lines.find((l) => l.includes('"msg":"started"'))
    expect(started).toBeDefined()
    expect(JSON.parse(started!)).toMatchObject({ mode: 'worker', httpApp: false })
    await node.devnet.mine(5)
    const head = Number(await node.blockNumber())
    let cursor = -1
    for (let i = 0; i < 60 && cursor < head; i++) {
      const samples = parseExposition(
        await (await fetch(`${worker.baseUrl}/metrics`, { headers: metricsHeaders })).text(),
      )
      cursor = samples.find((s) => s.name === 'workpay_watcher_cursor_block')?.value ?? -1
      if (cursor < head) await new Promise((r) => setTimeout(r, 500))
    }
    expect(cursor).toBeGreaterThanOrEqual(head)
  })

  it('answers 503 naming the chain while the chain endpoint is down, and 200 once it is back', async () => {
    node.devnet.setDown(true)
    try {
      const started = Date.now()
      const down = await getJson(`${worker.baseUrl}/ready`)
      expect(down.status).toBe(503)
      expect(down.body).toMatchObject({
        status: 'error',
        data: { code: 'UNAVAILABLE', failing: ['chain'], checks: { database: 'ok', chain: 'failed' } },
      })
      expect(down.body.message).toMatch(/chain/)
      // within the check's time limit (READY_TIMEOUT_MS), not the chain client's retries
      expect(Date.now() - started).toBeLessThan(5000)
      expect((await getJson(`${worker.baseUrl}/health`)).status).toBe(200)
    } finally {
      node.devnet.setDown(false)
    }
    expect((await getJson(`${worker.baseUrl}/ready`)).status).toBe(200)
    expect(
      worker.lines.some((l) => l.includes('readiness: part unreachable') && l.includes('"part":"chain"')),
    ).toBe(true)
  })

  it('answers 503 when the chain endpoint is gone (connection refused), and stops cleanly', async () => {
    await node.close()
    nodeClosed = true
    const gone = await getJson(`${worker.baseUrl}/ready`)
    expect(gone.status).toBe(503)
    expect(gone.body.data.failing).toEqual(['chain'])
    expect(await stopService(worker)).toBe(0)
    expect(await portClosed(worker.port)).toBe(true)
  })
})
