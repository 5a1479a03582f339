// Shared pieces of the benchmarks: the scenario contract and the HTTP load runner (autocannon, or
// requests of their own bodies, in one child process kept for the run, bench/http-load.mjs, so the
// load generator does not share the service's event loop).
import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'

export interface BenchUser {
  id: string
  email: string
  password: string
  token: string
}

export interface BenchContext {
  app: FastifyInstance
  baseUrl: string
  createUser(): Promise<BenchUser>
  /** `count` new users, signed up four at a time (each waits for its verification mail) */
  createUsers(count: number): Promise<BenchUser[]>
  /** a new user whose custodial wallet holds `usdc` base units, on chain and in the ledger */
  fundedUser(usdc: bigint): Promise<BenchUser>
  /** `--quick`: small data sets and short cases, the whole bench in under two minutes */
  quick: boolean
  /** the growth sizes (1,000,000 rows) apply: PostgreSQL and not `--quick` */
  large: boolean
  /** BENCH_DATABASE_URL, when the run is on a PostgreSQL server (for tools run beside the service) */
  databaseUrl?: string
  /** `--seconds N` when given (a case that runs for a set time, such as the soak, takes it whole) */
  seconds?: number
}

export interface HttpScenario {
  name: string
  method?: string
  path: string
  headers?: Record<string, string>
  body?: unknown
  /** a body per request, each sent once (bench/http-load.mjs), instead of `body` for `seconds` */
  bodies?: unknown[]
  connections?: number
  seconds?: number
}

export interface CustomScenario {
  name: string
  run: () => Promise<Record<string, number | string>>
}

export type Scenario = HttpScenario | CustomScenario

export interface HttpResult {
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
  non2xx: number
  errors: number
  total: number
}

const loadChildPath = fileURLToPath(new URL('./http-load.mjs', import.meta.url))
let loadChild: ChildProcess | undefined
let nextRun = 0
const pending = new Map<number, { resolve: (r: HttpResult) => void; reject: (e: Error) => void }>()

/** The load generator's child process (bench/http-load.mjs), forked at the first case and kept. */
function loadGenerator(): ChildProcess {
  if (loadChild) return loadChild
  const child = fork(loadChildPath, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  child.on('message', (m: { id: number; result?: HttpResult; error?: string }) => {
    const run = pending.get(m.id)
    pending.delete(m.id)
    if (m.result) run?.resolve(m.result)
    else run?.reject(new Error(`the load generator failed: ${m.error}`))
  })
  child.on('exit', (code) => {
    loadChild = undefined
    for (const run of pending.values()) run.reject(new Error(`the load generator exited (${code})`))
    pending.clear()
  })
  // It must not keep the bench's process alive once the run is over.
  child.unref()
  child.channel?.unref()
  loadChild = child
  return child
}

function runInChild(kind: 'autocannon' | 'bodies', spec: Record<string, unknown>): Promise<HttpResult> {
  const id = nextRun++
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject })
    loadGenerator().send({ id, kind, spec })
  })
}

/** One case's load: `s.body` repeated for `s.seconds`, or each of `s.bodies` sent once. */
export function runHttp(baseUrl: string, s: HttpScenario): Promise<HttpResult> {
  const url = `${baseUrl}${s.path}`
  const method = s.method ?? (s.bodies ? 'POST' : 'GET')
  if (s.bodies)
    return runInChild('bodies', {
      url,
      method,
      headers: s.headers ?? {},
      connections: s.connections ?? 10,
      bodies: s.bodies,
    })
  const headers = { ...(s.body !== undefined ? { 'content-type': 'application/json' } : {}), ...s.headers }
  return runInChild('autocannon', {
    url,
    method,
    headers,
    ...(s.body !== undefined ? { body: JSON.stringify(s.body) } : {}),
    connections: s.connections ?? 50,
    seconds: s.seconds ?? 5,
  })
}
