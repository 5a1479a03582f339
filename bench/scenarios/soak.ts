// Soak: a busy day at a fixed rate for a set time (`--seconds`; 600 unless given, 6 with
// --quick). 30 funded users (10 with --quick), 200 live sockets held open (40), and 150 requests/s
// sent open-loop from a child process (bench/soak-load.ts; the mix in bench/soak-mix.ts: 60 % reads,
// 25 % writes, 10 % money, 5 % logins). Each minute it prints the rate, p50/p99, the non-2xx answers
// by status and operation, the ticks not sent because 64 requests were already waiting, and this
// process's resident memory and JavaScript heap (the service runs in it: API, worker and, on the
// embedded defaults, the dev chain, whose blocks are counted beside), and the callers waiting for
// one of its pooled database connections. Then the resident memory's
// slope after warm-up (least squares over samples every 5 s, MB per minute), and the time the
// queue took to send what the run asked for. Goals: no errors, p99 under 100 ms in every minute,
// a slope under 1 MB/min. To tell garbage not yet collected from memory kept, the heap is also
// measured after a full collection at the end of the warm-up and after the drain: what the run
// kept is the difference (the collection at the warm-up's end pauses the service once, in that
// minute).
import { type ChildProcess, fork, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { type AddressInfo, createServer } from 'node:net'
import { loadavg } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { encodeFunctionData, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devPrivateKeys } from '../../src/platform/chain/devnet.ts'
import { MINT_ABI } from '../../src/platform/chain/devnet-bootstrap.ts'
import type { BenchContext, BenchUser, Scenario } from '../lib.ts'
import type { EndReport, LoadConfig, MinuteReport } from '../soak-load.ts'

const USDC = 1_000_000n
const RATE = 150
const MAX_IN_FLIGHT = 64
const SAMPLE_MS = 5000

const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10
/** the p-th percentile of `ms` (sorted in place), to 0.1 ms */
const pct = (ms: number[], p: number) => {
  ms.sort((a, b) => a - b)
  return Math.round((ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))] ?? 0) * 10) / 10
}
/** The dev chain's deployer (dev account 19), which may mint the dev tokens. */
const DEPLOYER = 19

/** Resident memory of another process (the dev chain's, when it runs on its own), in MB. */
function rssOf(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb ? Math.round((Number(kb) / 1024) * 10) / 10 : undefined
  } catch {
    return undefined
  }
}

/** CPU seconds (user + system) another process has used, from /proc. */
function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/** The heap and resident memory right after a full garbage collection, in MB. */
function afterFullGc(): { heapMB: number; rssMB: number } {
  // (the flag exposes `gc` to contexts made after it: the bench's own code runs without it)
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  gc()
  const mem = process.memoryUsage()
  return { heapMB: mb(mem.heapUsed), rssMB: mb(mem.rss) }
}

/** The pool's waiting callers over a minute's samples: mean, p99, and the share of samples with any. */
function poolLine(waits: number[]): string {
  if (!waits.length) return 'pool: no samples'
  const mean = waits.reduce((t, n) => t + n, 0) / waits.length
  const any = waits.filter((n) => n > 0).length / waits.length
  return (
    `pool waiting mean ${Math.round(mean * 10) / 10}, p99 ${pct(waits, 99)}, ` +
    `any in ${Math.round(any * 100)} % of samples`
  )
}

/** Least-squares slope of y over x. */
export function slope(points: { x: number; y: number }[]): number {
  const n = points.length
  if (n < 2) return Number.NaN
  const mx = points.reduce((s, p) => s + p.x, 0) / n
  const my = points.reduce((s, p) => s + p.y, 0) / n
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0)
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0)
  return sxx === 0 ? Number.NaN : sxy / sxx
}

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const app = ctx.app
  const s = app.services
  const db = s.database.db
  const seconds = ctx.seconds ?? (ctx.quick ? 6 : 600)
  const userCount = ctx.quick ? 10 : 30
  const socketCount = ctx.quick ? 40 : 200
  const tags = Array.from({ length: 30 }, (_, k) => `soak-skill-${k}`)

  const call = async (user: BenchUser, method: 'POST' | 'PATCH', url: string, payload?: object) => {
    const res = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${user.token}` },
      ...(payload ? { payload } : {}),
    })
    if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
    return res.json().data as Record<string, unknown>
  }
  const postJob = (user: BenchUser, name: string) =>
    call(user, 'POST', '/v1/collection', {
      type: 'job',
      name,
      description: 'A job of the soak',
      isPrivate: false,
      paymentFee: 100,
      tags: [tags[name.length % tags.length]!],
    }).then((d) => d._id as string)

  // With the dev chain in its own process (EVM_RPC_URL: `src/devchain.ts`, as in compose.yaml),
  // this process is the API and worker alone; wallets are funded by minting over its JSON-RPC.
  const rpcUrl = s.chain.devnet ? undefined : process.env.EVM_RPC_URL
  const chainPid = process.env.BENCH_CHAIN_PID ? Number(process.env.BENCH_CHAIN_PID) : undefined
  async function fundOverRpc(usdc: bigint): Promise<BenchUser> {
    const user = await ctx.createUser()
    await app.inject({ method: 'GET', url: '/v1/wallet', headers: { authorization: `Bearer ${user.token}` } })
    const key = await s.keys.find(db, 'user', user.id)
    const token = s.chain.coins.find((c) => c.reference === 'usdc')?.contractAddress
    if (!key || !token || !rpcUrl)
      throw new Error('funding over JSON-RPC needs EVM_RPC_URL and the usdc token')
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_sendTransaction',
        params: [
          {
            from: privateKeyToAccount(devPrivateKeys()[DEPLOYER]!).address,
            to: token,
            data: encodeFunctionData({
              abi: MINT_ABI,
              functionName: 'mint',
              args: [key.address as Hex, usdc],
            }),
          },
        ],
      }),
    })
    const body = (await res.json()) as { error?: { message: string } }
    if (body.error) throw new Error(`mint over JSON-RPC: ${body.error.message}`)
    const creditBy = performance.now() + 60_000
    while ((await s.ledger.balance(db, 'user', user.id, 'usdc')) < usdc) {
      if (performance.now() > creditBy) throw new Error('the wallet was not credited within 60 s')
      await s.settlement.watcher.scanNow()
    }
    return user
  }
  /** Stops this process's job runner and starts `main.ts worker` on the same database and chain. */
  async function startWorker(): Promise<ChildProcess> {
    const databaseUrl = ctx.databaseUrl
    if (!databaseUrl || !rpcUrl || !process.env.JWT_SECRET || !process.env.KEY_ENCRYPTION_KEY)
      throw new Error(
        'BENCH_SOAK_WORKER=process needs BENCH_DATABASE_URL, EVM_RPC_URL, JWT_SECRET and KEY_ENCRYPTION_KEY',
      )
    await s.jobs.stop()
    const port = await new Promise<number>((resolve, reject) => {
      const probe = createServer()
      probe.once('error', reject)
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo
        probe.close(() => resolve(port))
      })
    })
    const child = spawn(process.execPath, ['--import', './bench/typescript.mjs', 'src/main.ts', 'worker'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        WORKER_PORT: String(port),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    })
    // ready when its probe says so (database open, job runner started)
    const upBy = performance.now() + 60_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the worker process exited with ${child.exitCode}`)
      const ready = await fetch(`http://127.0.0.1:${port}/ready`).then(
        (r) => r.ok,
        () => false,
      )
      if (ready) break
      if (performance.now() > upBy) throw new Error('the worker process was not ready within 60 s')
      await new Promise((r) => setTimeout(r, 100))
    }
    return child
  }
  async function stopWorker(child: ChildProcess) {
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await exited
    s.jobs.start()
  }

  const users: BenchUser[] = []
  for (let i = 0; i < userCount; i++)
    users.push(rpcUrl ? await fundOverRpc(1000n * USDC) : await ctx.fundedUser(1000n * USDC))
  const jobs: LoadConfig['jobs'] = []
  for (const [i, u] of users.entries())
    for (let k = 0; k < 2; k++) jobs.push({ id: await postJob(u, `Soak job ${i}.${k}`), owner: i })
  const conversations: LoadConfig['conversations'] = []
  for (let i = 0; i + 1 < users.length; i += 2) {
    const [a, b] = [users[i]!, users[i + 1]!]
    const job = await postJob(a, `Soak chat job ${i}`)
    const invite = await call(a, 'POST', '/v1/invite', { recipient: b.id, collection: job })
    await call(b, 'POST', `/v1/invite/${invite._id}/accept`)
    const chat = await call(a, 'POST', '/v1/chat', { collectionId: job })
    conversations.push({ id: chat._id as string, users: [a.id, b.id] })
  }

  const blockNumber = async () =>
    Number(BigInt((await s.chain.client.request({ method: 'eth_blockNumber' })) as Hex))

  return [
    {
      name: `${RATE} req/s for ${seconds} s: ${userCount} funded users, ${socketCount} live sockets`,
      async run() {
        const cfg: LoadConfig = {
          baseUrl: ctx.baseUrl,
          seconds,
          rate: RATE,
          maxInFlight: MAX_IN_FLIGHT,
          sockets: socketCount,
          users,
          jobs,
          conversations,
          tags,
        }
        const child = fork(fileURLToPath(new URL('../soak-load.ts', import.meta.url)), {
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        })
        // BENCH_SOAK_WORKER=process: the jobs run in a worker process of their own (`main.ts
        // worker`), as compose.yaml deploys them, and this process serves the API alone
        const worker = process.env.BENCH_SOAK_WORKER === 'process' ? await startWorker() : undefined
        const samples: { t: number; rss: number }[] = []
        const minutes: string[] = []
        const worst = { p99: 0, errors: 0, unsent: 0, ticks: 0 }
        const errorsByKind: Record<string, number> = {}
        let started = 0
        let lastBlock = await blockNumber()
        // this process's CPU per answered request, and the machine's load: on a shared machine a
        // slow minute may be the neighbours' doing, and the CPU per request tells the two apart
        let lastCpu = process.cpuUsage()
        let lastWorkerCpu = worker ? cpuOf(worker.pid!) : 0
        const firstBlock = lastBlock
        let sampler: NodeJS.Timeout | undefined
        let warmGcTimer: NodeJS.Timeout | undefined
        let afterWarmup: { heapMB: number; rssMB: number } | undefined
        const warmupMs = Math.min(120_000, (seconds * 1000) / 3)
        // how long the service's event loop kept callbacks waiting (API, worker and, on the
        // embedded defaults, the dev chain share it): a request waits at least this long
        const loopDelay = monitorEventLoopDelay({ resolution: 10 })
        loopDelay.enable()
        // the service's own time per request, from its headers read to its answer written: what the
        // load generator measures beyond it is the way there and back (and the generator's turns)
        let served: number[] = []
        const onRequest = (_req: IncomingMessage, res: ServerResponse) => {
          const t0 = performance.now()
          res.once('finish', () => served.push(performance.now() - t0))
        }
        app.server.on('request', onRequest)
        // this process's connection pool every 50 ms: callers waiting for a connection (all busy)
        let poolWaits: number[] = []
        // the times this process's job worker gave way to its requests (JobQueue.yieldTo)
        let lastHeldBack = s.jobs.heldBack
        const poolSampler = setInterval(() => {
          const p = s.database.pool()
          if (p) poolWaits.push(p.waiting)
        }, 50)
        const end = await new Promise<EndReport>((resolve, reject) => {
          child.on('error', reject)
          child.on('exit', (code) => code !== 0 && reject(new Error(`the load process exited with ${code}`)))
          child.on('message', async (msg: MinuteReport | EndReport | { type: 'ready' }) => {
            if (msg.type === 'ready') {
              started = performance.now()
              samples.push({ t: 0, rss: process.memoryUsage.rss() })
              sampler = setInterval(
                () => samples.push({ t: performance.now() - started, rss: process.memoryUsage.rss() }),
                SAMPLE_MS,
              )
              warmGcTimer = setTimeout(() => {
                afterWarmup = afterFullGc()
              }, warmupMs)
              return
            }
            if (msg.type === 'end') return resolve(msg)
            const m = msg
            const block = await blockNumber()
            const span = Math.min(60, seconds - (m.minute - 1) * 60)
            const mem = process.memoryUsage()
            const cpu = process.cpuUsage(lastCpu)
            lastCpu = process.cpuUsage()
            const cpuMsPerReq = m.answered ? Math.round((cpu.user + cpu.system) / m.answered / 100) / 10 : 0
            const workerCpu = worker ? cpuOf(worker.pid!) : 0
            const workerCpuMs = m.answered
              ? Math.round(((workerCpu - lastWorkerCpu) * 10_000) / m.answered) / 10
              : 0
            lastWorkerCpu = workerCpu
            const errors = Object.entries(m.errors)
            const errorCount = errors.reduce((t, [, n]) => t + n, 0)
            for (const [k, n] of errors) errorsByKind[k] = (errorsByKind[k] ?? 0) + n
            worst.p99 = Math.max(worst.p99, m.p99Ms)
            worst.errors += errorCount
            worst.unsent += m.unsent
            worst.ticks += m.ticks
            const line =
              `minute ${m.minute}: ${Math.round((m.answered / span) * 10) / 10} req/s (${m.ticks} ticks, ` +
              `${m.unsent} not sent), p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms, max ${m.maxMs} ms, ` +
              `errors ${errorCount ? errors.map(([k, n]) => `${n}× ${k}`).join('; ') : 0}, ` +
              `RSS ${mb(mem.rss)} MB, heap ${mb(mem.heapUsed)} MB` +
              `${worker ? ` (worker process ${rssOf(worker.pid!)} MB, ${workerCpuMs} ms CPU/req)` : ''}` +
              `, chain +${block - lastBlock} blocks` +
              `${chainPid ? ` (its process ${rssOf(chainPid)} MB)` : ''}, ` +
              `tick lag ≤ ${m.lagMs} ms, ${cpuMsPerReq} ms CPU/req, load ${loadavg()[0]!.toFixed(1)}, ` +
              `event loop delay p99 ${Math.round(loopDelay.percentile(99) / 1e5) / 10} ms, ` +
              `served in p50 ${pct(served, 50)} ms, p99 ${pct(served, 99)} ms, ` +
              `${poolLine(poolWaits)}, jobs held back ${s.jobs.heldBack - lastHeldBack}×, ` +
              `slowest p50/p99: ${m.slowest.join('; ')}`
            loopDelay.reset()
            served = []
            poolWaits = []
            lastHeldBack = s.jobs.heldBack
            lastBlock = block
            minutes.push(line)
            console.log(`  soak ${line}`)
          })
          child.send(cfg)
        }).finally(() => {
          clearInterval(sampler)
          clearInterval(poolSampler)
          clearTimeout(warmGcTimer)
          loopDelay.disable()
          app.server.off('request', onRequest)
        })

        // What the run asked for is sent: no withdrawal or escrow release left under way.
        const drainStart = performance.now()
        let open = { withdrawals: 0, releasing: 0 }
        for (;;) {
          const w = await db
            .selectFrom('withdrawals')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('status', 'in', ['pending', 'processing'])
            .executeTakeFirstOrThrow()
          const e = await db
            .selectFrom('escrows')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('status', '=', 'releasing')
            .executeTakeFirstOrThrow()
          open = { withdrawals: Number(w.n), releasing: Number(e.n) }
          if ((open.withdrawals === 0 && open.releasing === 0) || performance.now() - drainStart > 180_000)
            break
          await new Promise((r) => setTimeout(r, 250))
        }
        const drainSeconds = Math.round(performance.now() - drainStart) / 1000
        const workerRss = worker ? rssOf(worker.pid!) : undefined
        if (worker) await stopWorker(worker)
        const rssAfterDrain = mb(process.memoryUsage.rss())
        const afterDrain = afterFullGc()
        const after = samples
          .filter((p) => p.t >= warmupMs)
          .map((p) => ({ x: p.t / 60_000, y: p.rss / 1048576 }))
        const completed = await db
          .selectFrom('withdrawals')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 'completed')
          .executeTakeFirstOrThrow()
        const released = await db
          .selectFrom('escrows')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 'released')
          .executeTakeFirstOrThrow()
        const slopeMBPerMin = Math.round(slope(after) * 100) / 100
        console.log(
          `  soak RSS slope after ${warmupMs / 1000} s of warm-up: ${slopeMBPerMin} MB/min ` +
            `(${after.length} samples); queue drained in ${drainSeconds} s; after a full collection, ` +
            `heap ${afterWarmup?.heapMB ?? '?'} MB (RSS ${afterWarmup?.rssMB ?? '?'}) at the warm-up's end, ` +
            `${afterDrain.heapMB} MB (RSS ${afterDrain.rssMB}) after the drain`,
        )
        return {
          seconds,
          ticks: worst.ticks,
          notSent: worst.unsent,
          errors: worst.errors,
          errorsByKind: Object.entries(errorsByKind)
            .map(([k, n]) => `${n}× ${k}`)
            .join('; '),
          worstMinuteP99Ms: worst.p99,
          rssSlopeMBPerMin: slopeMBPerMin,
          rssStartMB: mb(samples[0]?.rss ?? 0),
          rssEndMB: mb(samples.at(-1)?.rss ?? 0),
          rssAfterDrainMB: rssAfterDrain,
          heapAfterGcWarmMB: afterWarmup?.heapMB ?? 'not measured',
          heapAfterGcDrainMB: afterDrain.heapMB,
          rssAfterGcWarmMB: afterWarmup?.rssMB ?? 'not measured',
          rssAfterGcDrainMB: afterDrain.rssMB,
          chainBlocks: lastBlock - firstBlock,
          chain: rpcUrl
            ? `own process${chainPid ? `, ${rssOf(chainPid)} MB at the end` : ''}`
            : 'in this process',
          jobs: worker ? `worker process, ${workerRss} MB after the drain` : 'in this process',
          drainSeconds,
          stillOpen: `${open.withdrawals} withdrawals, ${open.releasing} releases`,
          withdrawalsCompleted: Number(completed.n),
          escrowsReleased: Number(released.n),
          socketsOpenAtEnd: end.socketsOpen,
          socketsClosed: end.socketsClosed,
          socketMessages: end.socketMessages,
          socketForeignMessages: end.socketForeign,
          flows: Object.entries(end.flows)
            .map(([k, n]) => `${k} ${n}`)
            .join(', '),
          perMinute: minutes.join(' | '),
          byOperation: Object.entries(end.byOperation)
            .map(([k, v]) => `${k} ${v}`)
            .join(', '),
          ...(Object.keys(end.errorSamples).length > 0
            ? {
                errorSamples: Object.entries(end.errorSamples)
                  .map(([k, bodies]) => `${k}: ${bodies.join(' / ')}`)
                  .join(' | '),
              }
            : {}),
        }
      },
    },
  ]
}
