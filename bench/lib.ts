// Shared pieces of the benchmarks: the scenario contract and the HTTP load runners (autocannon,
// or bench/bodies-load.mjs for requests of their own bodies, in a child process, so the load
// generator does not share the service's event loop).
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
  /** a body per request, each sent once (bench/bodies-load.mjs), instead of `body` for `seconds` */
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

const autocannonBin = createRequire(import.meta.url).resolve('autocannon/autocannon.js')

export async function runHttp(baseUrl: string, s: HttpScenario): Promise<HttpResult> {
  if (s.bodies) return runBodies(baseUrl, s, s.bodies)
  const args = [
    autocannonBin,
    '-j',
    '-c',
    String(s.connections ?? 50),
    '-d',
    String(s.seconds ?? 5),
    '-m',
    s.method ?? 'GET',
  ]
  const headers = { ...(s.body !== undefined ? { 'content-type': 'application/json' } : {}), ...s.headers }
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`)
  if (s.body !== undefined) args.push('-b', JSON.stringify(s.body))
  args.push(`${baseUrl}${s.path}`)
  const r = JSON.parse(await runNode(args, 'autocannon'))
  return {
    requestsPerSec: Math.round(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    total: r.requests.total,
  }
}

/** What a Node child process run with `args` prints, once it exits with 0. */
function runNode(args: string[], what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    child.stderr.on('data', (d) => {
      err += d
    })
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${what} failed (${code}): ${err}`)),
    )
  })
}

const bodiesBin = fileURLToPath(new URL('./bodies-load.mjs', import.meta.url))

/** Each of `bodies` sent once to `s.path`, `s.connections` at a time, from a child process. */
async function runBodies(baseUrl: string, s: HttpScenario, bodies: unknown[]): Promise<HttpResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bodies-'))
  const file = join(dir, 'spec.json')
  writeFileSync(
    file,
    JSON.stringify({
      url: `${baseUrl}${s.path}`,
      method: s.method ?? 'POST',
      headers: s.headers ?? {},
      connections: s.connections ?? 10,
      bodies,
    }),
  )
  try {
    return JSON.parse(await runNode([bodiesBin, file], 'bodies-load'))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
