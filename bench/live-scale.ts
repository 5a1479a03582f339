// Live pushes at scale across two API processes (registered by bench/scenarios/live.ts on
// PostgreSQL): two real `main.ts api` processes, started as `npm start` starts them (the bundle of
// scripts/compile-sources.mjs, compiled here first unless this state of the sources already was),
// on one fresh database of the bench's server (migrated here first),
// `users × perUser` sockets on GET /v1/live opened by load-generator children (bench/live-load.ts),
// each user with half of its sockets on either process, then (after one warm-up push to everyone,
// checked but reported apart: the first push compiles the send path) rounds of one push published
// the way the service publishes a push to many users (`publishLive` in a transaction: over 7,900
// bytes of recipients, the payload stored in `live_messages` and its id notified). Rounds alternate between
// every user and half of them (users 0, 1, 4, 5, 8, 9…: as many on either load generator, which
// take users alternately), so a socket that receives a push not addressed to its user is seen.
// Reports the delivery delay p50/p99/max over every (socket, push), the pushes missing, received
// twice, out of order or foreign, each API process's resident memory idle before and after the
// sockets were opened (memory per idle socket: the growth over its sockets), and the CPU time each
// API process and each load generator spent per push over the rounds (user and system, from
// /proc: on a shared machine a steadier figure than the delay, which includes waiting for a core).
// With BENCH_LIVE_PROFILE=<dir>, the API processes and the load generators write V8 CPU profiles
// there (`--cpu-prof`, on exit) and `rounds.json` holds the monotonic clock (µs, the profiles'
// clock) at the first publish and after the last round: the window to read the fan-out in. The
// figures of a profiled run are not comparable with others'.
import { type ChildProcess, fork, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import { compiledSources } from '../scripts/compile-sources.mjs'
import { openPostgres } from '../src/db/index.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { TokenService } from '../src/modules/auth/tokens.ts'
import { type LivePush, publishLive } from '../src/modules/live/publish.ts'
import { builtinCoinsConfig } from '../src/platform/chain/coins-config.ts'
import { devPrivateKeys, openDevnet } from '../src/platform/chain/devnet.ts'
import type { ChainAdapter, DevnetControls } from '../src/platform/chain/types.ts'
import { systemClock } from '../src/platform/clock.ts'
import { newId } from '../src/platform/crypto/ids.ts'
import type { BenchPush, FromLoad, LoadSocket, ToLoad } from './live-load.ts'

export interface ScaleOptions {
  databaseUrl: string
  users: number
  perUser: number
  rounds: number
  /** load-generator children */
  loaders: number
  /** the pause for the processes' memory to settle before each reading (2,000 and 3,000 ms unless set) */
  settleMs?: number
}

const JWT_SECRET = 'live-scale-bench-secret-0123456789-abcdef'
const KEY_ENCRYPTION_KEY = '33'.repeat(32)
const repoRoot = fileURLToPath(new URL('..', import.meta.url))
const profileDir = process.env.BENCH_LIVE_PROFILE
const profileArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []
/** the monotonic clock in µs, as V8's CPU profiles count time */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n)

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** Resident memory of a process, from /proc (bytes). */
function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) * 1024 : Number.NaN
}

const CLOCK_TICKS = 100
/** CPU time a process has used so far, user and system, from /proc (ms; 10 ms resolution). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Api {
  child: ChildProcess
  url: string
  output: string[]
}

/** `main.ts api` as `npm start` runs it (scripts/start.mjs); resolved once /health answers. */
async function startApi(env: Record<string, string>): Promise<Api> {
  const port = await freePort()
  const child = spawn(process.execPath, [...profileArgs, 'scripts/start.mjs', 'api'], {
    cwd: repoRoot,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output: string[] = []
  child.stdout!.on('data', (d) => output.push(String(d)))
  child.stderr!.on('data', (d) => output.push(String(d)))
  const url = `http://127.0.0.1:${port}`
  const by = performance.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API process exited:\n${output.join('')}`)
    const ok = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return { child, url, output }
    if (performance.now() > by) {
      child.kill('SIGKILL')
      throw new Error(`the API process did not answer /health:\n${output.join('')}`)
    }
    await sleep(250)
  }
}

function stopApi(api: Api): Promise<void> {
  if (api.child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const force = setTimeout(() => api.child.kill('SIGKILL'), 15_000)
    api.child.once('exit', () => {
      clearTimeout(force)
      resolve()
    })
    api.child.kill('SIGTERM')
  })
}

/** The coins file a process on an outside chain reads: the built-in coins where the node deployed them. */
function coinsFile(dir: string, node: ChainAdapter): string {
  const file = join(dir, 'coins.json')
  writeFileSync(
    file,
    JSON.stringify({
      chain: builtinCoinsConfig().chain,
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

class Loader {
  readonly child: ChildProcess
  readonly #waiting: Array<(m: FromLoad) => boolean> = []
  constructor() {
    this.child = fork(fileURLToPath(new URL('./live-load.ts', import.meta.url)), {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: [...process.execArgv, ...profileArgs],
    })
    this.child.on('message', (m: FromLoad) => {
      const i = this.#waiting.findIndex((w) => w(m))
      if (i >= 0) this.#waiting.splice(i, 1)
    })
  }
  send(msg: ToLoad) {
    this.child.send(msg)
  }
  /** the next message that `match` accepts */
  next<T extends FromLoad>(match: (m: FromLoad) => m is T): Promise<T> {
    return new Promise((resolve) =>
      this.#waiting.push((m) => {
        if (!match(m)) return false
        resolve(m)
        return true
      }),
    )
  }
}

export async function liveScale(o: ScaleOptions): Promise<Record<string, number | string>> {
  const dbName = `live_scale_${process.pid}_${Date.now()}`
  const admin = openPostgres(o.databaseUrl, 1)
  await sql.raw(`create database ${dbName}`).execute(admin.db)
  const url = new URL(o.databaseUrl)
  url.pathname = `/${dbName}`
  const dir = mkdtempSync(join(tmpdir(), 'wp-live-scale-'))
  const node = (await openDevnet(builtinCoinsConfig())) as ChainAdapter & { devnet: DevnetControls }
  const rpcUrl = await node.devnet.listen(0)
  const keys = devPrivateKeys()
  const env = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATABASE_URL: url.href,
    JWT_SECRET,
    KEY_ENCRYPTION_KEY,
    EVM_RPC_URL: rpcUrl,
    COINS_FILE: coinsFile(dir, node),
    TREASURY_PRIVATE_KEY: keys[18]!,
    GAS_WALLET_PRIVATE_KEY: keys[17]!,
    DATA_DIR: dir,
  }
  const apis: Api[] = []
  const loaders: Loader[] = []
  const db = openPostgres(url.href, 4)
  try {
    // Both start at once, on the database migrated and the sources compiled beforehand (neither
    // waits for the other's migration or compiles the same bundle).
    await migrateToLatest(db.db)
    const esbuild = await import('esbuild')
    await compiledSources({ root: repoRoot, esbuild })
    await esbuild.stop()
    const started = await Promise.allSettled([startApi(env), startApi(env)])
    for (const r of started) if (r.status === 'fulfilled') apis.push(r.value)
    for (const r of started) if (r.status === 'rejected') throw r.reason

    // Users and their sessions in two statements; tokens signed as the service signs them.
    const tokens = new TokenService(JWT_SECRET, systemClock)
    const users = Array.from({ length: o.users }, () => ({ id: newId(), sessionId: newId() }))
    await sql`
      insert into users (id, email, first_name, last_name, status, email_verified, user_name, referral_code)
      select id, 'live' || n || '@example.com', 'Live', 'Bench', true, true, 'live' || n, 'LIVE' || n
      from unnest(${users.map((u) => u.id)}::text[]) with ordinality as t(id, n)`.execute(db.db)
    await sql`
      insert into sessions (id, user_id)
      select * from unnest(${users.map((u) => u.sessionId)}::text[], ${users.map((u) => u.id)}::text[])`.execute(
      db.db,
    )
    const signed = await Promise.all(
      users.map(async (u) => ({ userId: u.id, token: (await tokens.access(u.id, u.sessionId)).token })),
    )

    // Idle memory of each process, before any socket (after a moment to settle).
    await sleep(o.settleMs ?? 2000)
    const rssBefore = apis.map((a) => rssOf(a.child.pid!))

    // Each user's sockets half on either process; users split across the load generators.
    for (let i = 0; i < o.loaders; i++) loaders.push(new Loader())
    const shares: LoadSocket[][] = loaders.map(() => [])
    signed.forEach((u, i) => {
      for (let k = 0; k < o.perUser; k++)
        shares[i % o.loaders]!.push({
          url: `${apis[k % 2]!.url.replace(/^http/, 'ws')}/v1/live`,
          userId: u.userId,
          token: u.token,
        })
    })
    const openedAt = performance.now()
    const opened = await Promise.all(
      loaders.map((l, i) => {
        const done = l.next((m): m is Extract<FromLoad, { type: 'opened' }> => m.type === 'opened')
        l.send({ cmd: 'open', sockets: shares[i]!, concurrency: 25 })
        return done
      }),
    )
    const openSeconds = (performance.now() - openedAt) / 1000
    const sockets = opened.reduce((n, r) => n + r.opened, 0)
    const failedToOpen = opened.reduce((n, r) => n + r.failed, 0)
    await sleep(o.settleMs ?? 3000)
    const rssAfter = apis.map((a) => rssOf(a.child.pid!))

    // Rounds: one push to every user, then one to half of them, alternately.
    const everyone = signed.map((u) => u.userId)
    const half = everyone.filter((_, i) => (i >> 1) % 2 === 0)
    let timedOut = 0
    const round = async (r: number, audience: string[]) => {
      const acks = loaders.map((l) =>
        l.next((m): m is Extract<FromLoad, { type: 'round' }> => m.type === 'round' && m.round === r),
      )
      for (const l of loaders) l.send({ cmd: 'expect', round: r, userIds: audience })
      const data: BenchPush = { round: r, sentAt: performance.timeOrigin + performance.now() }
      const push: LivePush = { userIds: audience, type: 'bench.push', data }
      await db.db.transaction().execute((tx) => publishLive(tx, push))
      const all = Promise.all(acks).then(() => true)
      if (!(await Promise.race([all, sleep(10_000).then(() => false)]))) timedOut++
      await sleep(200)
    }
    // One push to everyone first, checked like the others but not in the delays: the first push
    // after start compiles the send path and opens the pool's connection that loads stored pushes
    // (its delay is reported on its own).
    await round(-1, everyone)
    const window = { startUs: monotonicUs(), endUs: 0 }
    // CPU of each side over the rounds (the 200 ms pauses between rounds cost next to nothing)
    const cpuOf = () => ({
      apis: apis.map((a) => cpuMsOf(a.child.pid!)),
      loaders: loaders.map((l) => cpuMsOf(l.child.pid!)),
    })
    const cpuBefore = cpuOf()
    for (let r = 0; r < o.rounds; r++) await round(r, r % 2 === 0 ? everyone : half)
    window.endUs = monotonicUs()
    const cpuAfter = cpuOf()
    const cpuPerPush = (k: 'apis' | 'loaders') =>
      cpuAfter[k].map((after, i) => ((after - cpuBefore[k][i]!) / o.rounds).toFixed(1)).join(' / ')
    if (profileDir) writeFileSync(join(profileDir, 'rounds.json'), JSON.stringify(window))
    const reports = await Promise.all(
      loaders.map((l) => {
        const done = l.next((m): m is Extract<FromLoad, { type: 'report' }> => m.type === 'report')
        l.send({ cmd: 'report' })
        return done
      }),
    )
    const latencies = reports.flatMap((r) => r.latencies).sort((a, b) => a - b)
    const warmUp = reports.flatMap((r) => r.warmUpLatencies).sort((a, b) => a - b)
    const sum = (k: 'missing' | 'duplicates' | 'foreign' | 'outOfOrder' | 'closed') =>
      reports.reduce((n, r) => n + r[k], 0)
    const perProcess = sockets / apis.length
    const mb = (b: number) => Number((b / 1024 / 1024).toFixed(1))
    return {
      processes: apis.length,
      sockets,
      users: o.users,
      failedToOpen,
      ...(opened.find((r) => r.firstError)
        ? { openError: opened.find((r) => r.firstError)!.firstError! }
        : {}),
      openSeconds: Number(openSeconds.toFixed(1)),
      rounds: o.rounds,
      deliveries: latencies.length,
      p50Ms: Number(percentile(latencies, 50).toFixed(1)),
      p99Ms: Number(percentile(latencies, 99).toFixed(1)),
      maxMs: Number((latencies.at(-1) ?? Number.NaN).toFixed(1)),
      warmUpP99Ms: Number(percentile(warmUp, 99).toFixed(1)),
      missing: sum('missing'),
      duplicates: sum('duplicates'),
      foreign: sum('foreign'),
      outOfOrder: sum('outOfOrder'),
      socketsClosed: sum('closed'),
      roundsTimedOut: timedOut,
      apiCpuMsPerPush: cpuPerPush('apis'),
      loadCpuMsPerPush: cpuPerPush('loaders'),
      rssIdleMB: rssBefore.map(mb).join(' / '),
      rssWithSocketsMB: rssAfter.map(mb).join(' / '),
      kbPerIdleSocket: rssAfter
        .map((after, i) => ((after - rssBefore[i]!) / perProcess / 1024).toFixed(1))
        .join(' / '),
    }
  } finally {
    for (const l of loaders) {
      l.send({ cmd: 'close' })
      await new Promise((r) => (l.child.exitCode !== null ? r(null) : l.child.once('exit', r)))
    }
    await Promise.all(apis.map(stopApi))
    await db.close()
    await node.close()
    await sql.raw(`drop database if exists ${dbName} with (force)`).execute(admin.db)
    await admin.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
