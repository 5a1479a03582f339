// `npm run bench [-- --only name,name] [-- --seconds N] [-- --quick] [-- --profile DIR]`: builds the real service in-process on a
// fresh embedded database (or BENCH_DATABASE_URL), listens on loopback, measures a bare Fastify
// "hello" route as the ceiling, then every scenario of bench/scenarios/*.ts. Prints a table,
// writes bench/results/latest.json and appends to bench/HISTORY.md.
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { Session } from 'node:inspector/promises'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import { sql } from 'kysely'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { sessionSettings } from '../src/db/durability.ts'
import { openPGlite, openPostgres } from '../src/db/index.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { type BenchContext, type BenchUser, type HttpResult, runHttp, type Scenario } from './lib.ts'

const args = process.argv.slice(2)
const only = args.includes('--only') ? args[args.indexOf('--only') + 1]!.split(',') : undefined
const quick = args.includes('--quick')
// `--profile DIR`: a V8 CPU profile of this process (the service) for each case, written to
// DIR/<case>.cpuprofile (open it in Chrome's DevTools); the figures of a profiled run are not
// comparable with others'.
const profileDir = args.includes('--profile') ? args[args.indexOf('--profile') + 1] : undefined
const seconds = args.includes('--seconds')
  ? Number(args[args.indexOf('--seconds') + 1])
  : quick
    ? 0.5
    : undefined

const dataDir = mkdtempSync(join(tmpdir(), 'wp-bench-'))
const config = loadConfig(
  {
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_AUTH_PER_IP: '1000000',
    RATE_LIMIT_AUTH_PER_EMAIL: '1000000',
    // one load generator on one address: the limits on repeated writes out of its reach
    RATE_LIMIT_WRITES_SCALE: '100000',
    UPLOAD_MAX_BYTES: String(200 * 1024 * 1024),
    PORT: '0',
  },
  {},
)
// The service's own pool (DATABASE_POOL_SIZE, 10 unless set), as `npm start` opens it: how many
// transactions wait in PostgreSQL at once changes what a contended row costs.
const database = process.env.BENCH_DATABASE_URL
  ? openPostgres(process.env.BENCH_DATABASE_URL, config.databasePoolSize)
  : await openPGlite({ dataDir: join(dataDir, 'pg') })
await migrateToLatest(database.db)
// How PostgreSQL is reached (TCP or its Unix socket): each round trip costs both processes more
// over TCP, so runs are compared by transport too.
const transport =
  database.kind === 'postgres'
    ? await sql<{ via: string }>`
        select case when inet_client_addr() is null then 'unix socket' else 'tcp' end as via`
        .execute(database.db)
        .then((r) => r.rows[0]!.via)
    : 'in process'
// The server settings that move write throughput most. A server that runs without autovacuum (as
// one set up only for tests may) or with a commit that does not wait for its WAL flush gives
// figures not comparable with a production one's, so a run records them and its HISTORY.md
// heading names any such difference.
const server =
  database.kind === 'postgres'
    ? await sessionSettings(database.db, [
        'autovacuum',
        'fsync',
        'synchronous_commit',
        'full_page_writes',
        'shared_buffers',
        'max_wal_size',
        'server_version',
      ])
    : undefined
const serverNotes = server
  ? [
      server.autovacuum === 'off' ? 'autovacuum off' : '',
      server.fsync === 'off' ? 'fsync off' : '',
      server.synchronous_commit !== 'on' ? `synchronous_commit ${server.synchronous_commit}` : '',
    ].filter(Boolean)
  : []
const app = await buildApp({ config, database, logger: false })
// The job runner at the interval `npm start` gives it (a job queued here wakes it at once).
app.services.jobs.start()
const address = await app.listen({ host: '127.0.0.1', port: 0 })

let userSeq = 0
async function createUser(): Promise<BenchUser> {
  const email = `bench${Date.now()}${userSeq++}@example.com`
  const password = 'Bench!pass1'
  const reg = await app.inject({
    method: 'POST',
    url: '/v1/auth/create-account',
    payload: { firstName: 'Bench', lastName: 'User', email, password, confirmPassword: password },
  })
  const tempToken = reg.json().data.tempToken.token
  // The worker loop may already be sending the mail: wait for it to land in the outbox.
  let mail: { text: string } | undefined
  for (let i = 0; i < 200 && !mail; i++) {
    await app.services.jobs.runUntilIdle()
    mail = await database.db
      .selectFrom('mails')
      .select('text')
      .where('toAddress', '=', email)
      .orderBy('createdAt', 'desc')
      .executeTakeFirst()
    if (!mail) await new Promise((r) => setTimeout(r, 25))
  }
  if (!mail) throw new Error(`no verification mail for ${email}`)
  const code = mail.text.match(/\b(\d{6})\b/)![1]
  const ver = await app.inject({
    method: 'POST',
    url: '/v1/auth/account/verify',
    payload: { token: code, tempToken },
  })
  const token = ver.json().data.token
  const me = await app.inject({
    method: 'GET',
    url: '/v1/account',
    headers: { authorization: `Bearer ${token}` },
  })
  return { id: me.json().data._id, email, password, token }
}
async function createUsers(count: number): Promise<BenchUser[]> {
  const users: BenchUser[] = []
  let asked = 0
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (asked < count) {
        asked++
        users.push(await createUser())
      }
    }),
  )
  return users
}
/**
 * A new user whose custodial wallet holds `usdc` base units: minted to its address on the dev
 * chain and credited by the real watcher, as a deposit is, so that the address holds what the
 * ledger says (a balance written in the ledger alone would be a drift that the reconciliation,
 * every 10 minutes, halts the coin for).
 */
async function fundedUser(usdc: bigint): Promise<BenchUser> {
  const s = app.services
  const user = await createUser()
  await app.inject({ method: 'GET', url: '/v1/wallet', headers: { authorization: `Bearer ${user.token}` } })
  const key = await s.keys.find(database.db, 'user', user.id)
  if (!key || !s.chain.devnet) throw new Error('a funded wallet needs the dev chain')
  await s.chain.devnet.fund(key.address, 'usdc', usdc)
  const creditBy = performance.now() + 60_000
  while ((await s.ledger.balance(database.db, 'user', user.id, 'usdc')) < usdc) {
    if (performance.now() > creditBy) throw new Error('the wallet was not credited within 60 s')
    await s.settlement.watcher.scanNow()
  }
  return user
}

/** Starts a CPU profile of this process; the function returned writes it to `file`.cpuprofile. */
async function startProfile(file: string): Promise<() => Promise<void>> {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
  return async () => {
    const { profile } = await session.post('Profiler.stop')
    mkdirSync(profileDir!, { recursive: true })
    writeFileSync(`${file}.cpuprofile`, JSON.stringify(profile))
    session.disconnect()
  }
}

const ctx: BenchContext = {
  app,
  baseUrl: address,
  createUser,
  createUsers,
  fundedUser,
  quick,
  large: database.kind === 'postgres' && !quick,
  databaseUrl: process.env.BENCH_DATABASE_URL,
  ...(args.includes('--seconds') ? { seconds: Number(args[args.indexOf('--seconds') + 1]) } : {}),
}

// The machine's 1-minute load average when the run starts and ends: the machine may be shared,
// and the figures mean little when it was busy.
const loadAtStart = loadavg()[0]!
// The ceiling: a bare Fastify route on the same machine, measured the same way.
const bare = Fastify()
bare.get('/hello', async () => ({ hello: 'world' }))
const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 })
// A first, discarded second: on a machine that has just started, the first seconds of load (the
// JIT, the CPU's clock) run well below what the same route does once warm, and a low ceiling
// would inflate every share of it.
await runHttp(bareUrl, { name: 'ceiling warm-up', path: '/hello', seconds: 1 })
// Also the CPU each request cost this process (the load tool runs in its own): a steadier measure
// of the service's own cost than the rate on a machine whose speed varies from run to run.
const cpuPerRequest = async (run: () => Promise<HttpResult>) => {
  const cpu = process.cpuUsage()
  const r = await run()
  const used = process.cpuUsage(cpu)
  return {
    ...r,
    cpuUsPerReq: r.total ? Math.round((used.user + used.system) / r.total) : 0,
    sysUsPerReq: r.total ? Math.round(used.system / r.total) : 0,
  }
}
// Never longer than 5 s (`--seconds` may be a soak's whole length), nor shorter than 1 s (a
// half-second --quick ceiling is mostly start-up).
const measureCeiling = () =>
  cpuPerRequest(() =>
    runHttp(bareUrl, { name: 'ceiling', path: '/hello', seconds: Math.min(Math.max(seconds ?? 5, 1), 5) }),
  )
let ceiling = await measureCeiling()

interface Row {
  name: string
  result: Record<string, number | string>
}
const rows: Row[] = [{ name: 'bare Fastify hello (ceiling)', result: { ...ceiling } }]
const print = (r: Row) => console.log(`${r.name.padEnd(58)} ${JSON.stringify(r.result)}`)
print(rows[0]!)

const files = readdirSync(new URL('./scenarios/', import.meta.url))
  .filter((f) => f.endsWith('.ts'))
  .sort((a, b) => (a === 'core.ts' ? -1 : b === 'core.ts' ? 1 : a.localeCompare(b)))
for (const file of files) {
  const name = file.replace(/\.ts$/, '')
  if (only && !only.includes(name)) continue
  const setStart = performance.now()
  const mod = await import(new URL(`./scenarios/${file}`, import.meta.url).href)
  let scenarios: Scenario[]
  // where the set's time goes: its setup, then each case (printed with the set's total)
  const spent: string[] = []
  try {
    scenarios = await mod.default(ctx)
    spent.push(`setup ${((performance.now() - setStart) / 1000).toFixed(1)}`)
  } catch (err) {
    console.error(`scenario set ${name} failed to set up:`, err)
    rows.push({ name: `${name}: setup failed`, result: { error: String(err) } })
    continue
  }
  // This machine's speed has been seen to drift by a fifth within one run: each set's HTTP cases
  // are compared with the ceiling measured again, the same way, right before them (its own row).
  if (!quick && scenarios.some((s) => !('run' in s))) {
    ceiling = await measureCeiling()
    const row = { name: `${name}: bare Fastify hello (ceiling for this set)`, result: { ...ceiling } }
    rows.push(row)
    print(row)
  }
  for (const [i, s] of scenarios.entries()) {
    const caseStart = performance.now()
    let result: Record<string, number | string>
    const stopProfile = profileDir
      ? await startProfile(join(profileDir, `${name}-${s.name}`.replace(/[^\w.-]+/g, '_')))
      : undefined
    try {
      if ('run' in s) result = await s.run()
      else {
        // A GET case first gets one unmeasured second of the same load, as the ceiling does: the
        // first thousands of requests of a route run code not yet optimised, which a running
        // service has long done (not in --quick, and not for writes, whose requests add data).
        if (!quick && (s.method ?? 'GET') === 'GET') await runHttp(address, { ...s, seconds: 1 })
        // Statements per request (BEGIN/COMMIT not counted), less the background rate (the job
        // runner's polling) measured just before the case with no load.
        const idleMs = quick ? 100 : 250
        const idle0 = database.queryCount()
        await new Promise((r) => setTimeout(r, idleMs))
        const idlePerMs = (database.queryCount() - idle0) / idleMs
        const q0 = database.queryCount()
        const t0 = performance.now()
        const r = await cpuPerRequest(() => runHttp(address, { ...s, seconds: seconds ?? s.seconds ?? 5 }))
        const background = idlePerMs * (performance.now() - t0)
        const queriesPerReq = r.total
          ? Number(Math.max(0, (database.queryCount() - q0 - background) / r.total).toFixed(2))
          : 0
        result = {
          ...r,
          ofCeiling: Number((r.requestsPerSec / ceiling.requestsPerSec).toFixed(3)),
          queriesPerReq,
        }
      }
    } catch (err) {
      result = { error: String(err) }
    }
    await stopProfile?.()
    const row = { name: `${name}: ${s.name}`, result }
    rows.push(row)
    print(row)
    spent.push(`${i + 1}: ${((performance.now() - caseStart) / 1000).toFixed(1)}`)
  }
  // what each set costs of the whole run (the --quick run's two minutes are spent set by set)
  console.log(`${name}: ${((performance.now() - setStart) / 1000).toFixed(1)} s (${spent.join(', ')})`)
}

// The ledger against the chain once every case has run: a case that left value in the ledger that
// no custodial address holds (or the reverse) shows here, not as a halted coin in a later case.
{
  const run = await app.services.settlement.reconciliation.runNow()
  const drift = run.coins.filter((c) => BigInt(c.drift) !== 0n)
  const row = {
    name: 'reconciliation after the run',
    result: {
      status: run.status,
      invariantViolations: run.violations.length,
      drift: drift.map((c) => `${c.coin} ${c.drift}`).join(', ') || 'none',
      halted: run.halted.join(', ') || 'none',
      ...(run.error ? { error: run.error } : {}),
    },
  }
  rows.push(row)
  print(row)
}

// The results are written before the service is taken down: a run whose cases left work behind
// (a soak's queue not drained in its time) must not lose its figures to a teardown that waits.
const meta = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  load: { start: Number(loadAtStart.toFixed(2)), end: Number(loadavg()[0]!.toFixed(2)) },
  // The whole run, from this process's start (the goal for --quick is under two minutes).
  seconds: Math.round(process.uptime()),
  database: database.kind,
  transport,
  ...(database.kind === 'postgres' ? { poolSize: config.databasePoolSize } : {}),
  ...(server ? { server } : {}),
}
const resultsDir = new URL('./results/', import.meta.url)
if (!existsSync(resultsDir)) mkdirSync(resultsDir)
writeFileSync(new URL('latest.json', resultsDir), `${JSON.stringify({ ...meta, rows }, null, 2)}\n`)
const history = new URL('./HISTORY.md', import.meta.url)
if (!existsSync(history)) {
  writeFileSync(
    history,
    '# Benchmark history\n\nOne section per `npm run bench` run (newest last). req/s, p50/p99 in ms.\n',
  )
}
// HTTP cases in their short form; any other result (a scenario's own figures) in full.
const fmt = (r: Record<string, number | string>) =>
  'non2xx' in r
    ? `${r.requestsPerSec} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms${r.ofCeiling !== undefined ? `, ${r.ofCeiling}× ceiling` : ''}${r.cpuUsPerReq !== undefined ? `, ${r.cpuUsPerReq} µs CPU/req` : ''}${r.queriesPerReq !== undefined ? `, ${r.queriesPerReq} queries/req` : ''}${r.non2xx ? `, ${r.non2xx} non-2xx` : ''}`
    : Object.entries(r)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')
appendFileSync(
  history,
  `\n## ${meta.date} (${meta.database}${meta.transport === 'unix socket' ? ' over its unix socket' : ''}${meta.poolSize !== undefined ? `, pool ${meta.poolSize}` : ''}${serverNotes.map((n) => `, ${n}`).join('')}, ${meta.cpus} cores, Node ${meta.node}, load ${meta.load.start} → ${meta.load.end}${quick ? ', --quick' : ''}, ${meta.seconds} s)\n\n${rows.map((r) => `- ${r.name}: ${fmt(r.result)}`).join('\n')}\n`,
)
console.log('\nwrote bench/results/latest.json and bench/HISTORY.md')

// Taken down within a minute, whatever is still running (the exit ends it).
const teardown = async () => {
  await bare.close()
  await app.close()
  await app.services.jobs.stop()
  await database.close()
}
await Promise.race([teardown(), new Promise((resolve) => setTimeout(resolve, 60_000).unref())])
rmSync(dataDir, { recursive: true, force: true })
process.exit(0)
