// `node bench/devnet-start.mjs [--transfers 10000] [--concurrency 1] [--restarts 2]`: `npm start`
// on a new data directory with the dev chain's JSON-RPC port open, N native transfers sent to it
// from the dev accounts (to new addresses, `--concurrency` at a time), the service's resident
// memory then, and `--restarts` starts again on that directory: the time to the first 200 from
// GET /health, the `started` line's steps, and the resident memory 2 s after (as
// scripts/measure-start.mjs measures a start). The journal of those transfers is in the database,
// and every start replays it. `--sample N`: the service's resident memory every N transfers
// while they are sent, with the swaps of its live EVM so far (the `devnet EVM rebuilt` log lines)
// and the load average. `--recipients N`: the transfers go to N addresses in turn rather than
// each to a new one (the chain's state then stops growing).
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values: args } = parseArgs({
  options: {
    transfers: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '1' },
    restarts: { type: 'string', default: '2' },
    sample: { type: 'string', default: '0' },
    // the transfers go to this many addresses in turn (0: a new address each time)
    recipients: { type: 'string', default: '0' },
  },
})
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })

/** The node process that serves: the command's last descendant (npm → sh → exec node). */
function servingPid(pid) {
  for (let i = 0; i < 4; i++) {
    let children = []
    try {
      children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
    } catch {}
    if (children.length === 0) return pid
    pid = Number(children.at(-1))
  }
  return pid
}

/** VmRSS of the node process serving, in MB */
function rssMB(pid) {
  const status = readFileSync(`/proc/${servingPid(pid)}/status`, 'utf8')
  return Math.round(Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) / 1024)
}

async function start(dataDir, devchainPort) {
  const port = await freePort()
  const t0 = performance.now()
  const child = spawn('npm', ['start'], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      NODE_ENV: 'development',
      ...(devchainPort ? { DEVCHAIN_PORT: String(devchainPort) } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d) => {
    output += d
  })
  child.stderr.on('data', (d) => {
    output += d
  })
  let exited = false
  const gone = new Promise((resolve) =>
    child.on('exit', (code) => {
      exited = true
      resolve(code)
    }),
  )
  let healthMs
  while (healthMs === undefined) {
    if (exited) throw new Error(`the service exited:\n${output}`)
    if (performance.now() - t0 > 300_000) throw new Error(`no /health in 300 s:\n${output}`)
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) healthMs = performance.now() - t0
    } catch {}
    if (healthMs === undefined) await sleep(20)
  }
  const started = output.split('\n').find((l) => l.includes('"msg":"started"'))
  return {
    healthMs: Math.round(healthMs),
    steps: started ? JSON.parse(started).startupMs : undefined,
    rss: () => rssMB(child.pid),
    /** the live EVM swaps the service logged so far */
    swaps: () =>
      output
        .split('\n')
        .filter((l) => l.includes('devnet EVM rebuilt'))
        .flatMap((l) => {
          try {
            return [JSON.parse(l)]
          } catch {
            return [] // a line still being written
          }
        }),
    async stop() {
      child.kill('SIGTERM')
      const code = await gone
      if (code !== 0) throw new Error(`exited with ${code} on SIGTERM:\n${output.slice(-2000)}`)
    },
  }
}

async function rpc(url, method, params) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = await res.json()
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

const dataDir = mkdtempSync(join(tmpdir(), 'wp-devnet-start-'))
const transfers = Number(args.transfers)
const concurrency = Number(args.concurrency)
const load = () => loadavg()[0].toFixed(2)
try {
  const devchainPort = await freePort()
  const first = await start(dataDir, devchainPort)
  await sleep(2000)
  const url = `http://127.0.0.1:${devchainPort}`
  const accounts = (await rpc(url, 'eth_accounts', [])).slice(0, 10)
  const rssBefore = first.rss()
  const block0 = Number(await rpc(url, 'eth_blockNumber', []))
  const t0 = performance.now()
  let sent = 0
  let done = 0
  const sample = Number(args.sample)
  const worker = async (w) => {
    while (sent < transfers) {
      const i = sent++
      const n = Number(args.recipients) > 0 ? BigInt(i % Number(args.recipients)) : BigInt(i)
      const to = `0x${(n * 7919n + 0x100000n).toString(16).padStart(40, '0')}`
      await rpc(url, 'eth_sendTransaction', [{ from: accounts[(w + i) % accounts.length], to, value: '0x1' }])
      if (sample > 0 && ++done % sample === 0) {
        const swaps = first.swaps()
        console.log(
          JSON.stringify({
            step: 'sampled',
            transfers: done,
            block: Number(await rpc(url, 'eth_blockNumber', [])),
            rssMB: first.rss(),
            swaps: swaps.length,
            lastSwapMs: swaps.at(-1)?.ms,
            load: load(),
          }),
        )
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)))
  const blocks = Number(await rpc(url, 'eth_blockNumber', [])) - block0
  await sleep(2000)
  console.log(
    JSON.stringify({
      step: 'sent',
      transfers,
      concurrency,
      blocks,
      seconds: Math.round(performance.now() - t0) / 1000,
      rssBeforeMB: rssBefore,
      rssAfterMB: first.rss(),
      swaps: first.swaps().length,
      load: load(),
    }),
  )
  await first.stop()
  for (let r = 0; r < Number(args.restarts); r++) {
    const again = await start(dataDir)
    await sleep(2000)
    console.log(
      JSON.stringify({
        step: `restart ${r + 1}`,
        healthMs: again.healthMs,
        rssMB: again.rss(),
        steps: again.steps,
        load: load(),
      }),
    )
    await again.stop()
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
