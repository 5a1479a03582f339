// Running the real service as a child process: `npm start` or `node --import tsx src/main.ts`,
// its log lines, its HTTP API, its dev chain over JSON-RPC, and (with TEST_DB=postgres) a fresh
// PostgreSQL database of its own.
import type { ChildProcess } from 'node:child_process'
import { createServer, connect as netConnect } from 'node:net'
import { expect, inject } from 'vitest'
import { PASSWORD, uniqueEmail } from '../helpers/factories.ts'
import { scratchPostgres } from '../helpers/postgres.ts'
import { type Child, spawnLogged } from '../ops/support.ts'

export const SECRETS = {
  JWT_SECRET: 'process-test-secret-0123456789-abcdefghij',
  RESERVES_ATTESTATION_KEY: `0x${'55'.repeat(32)}`,
  METRICS_TOKEN: 'production-metrics-token-0123',
  KEY_ENCRYPTION_KEY: '22'.repeat(32),
}

/** A service started by `start`: the spawner's child (ops/support.ts). */
export type Running = Child

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Starts the service (`npm start`, or the source through tsx) and resolves once it listens and
 * has logged the end of its start-up.
 */
export function start(env: Record<string, string>, opts: { npm?: boolean } = {}): Promise<Running> {
  return opts.npm
    ? spawnLogged('npm', ['start', '--silent'], env)
    : spawnLogged(process.execPath, ['--import', 'tsx', 'src/main.ts'], env)
}

/** Resolves with the exit code once the child has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => {
    child.removeAllListeners('exit')
    child.on('exit', (code) => resolve(code))
  })
}

export function stop(r: Running, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  const done = exited(r.child)
  r.child.kill(signal)
  return done
}

/** true when nothing accepts connections on the port */
export function portClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect({ port, host: '127.0.0.1' })
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', () => resolve(true))
  })
}

export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return false
  } catch {
    return true
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** Polls `fn` until it returns a value other than undefined, or fails after `ms`. */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}

/** Log lines that report a chain reorganisation. */
export const reorgAlarms = (lines: string[]) => lines.filter((l) => /REORG/i.test(l))

/**
 * The database the child uses: its own embedded one under DATA_DIR, or with TEST_DB=postgres a
 * new PostgreSQL database (and then the secrets must be given).
 */
export async function serviceDatabase(): Promise<{
  kind: 'pglite' | 'postgres'
  env: Record<string, string>
  drop(): Promise<void>
}> {
  if (inject('testDb') !== 'postgres') return { kind: 'pglite', env: {}, drop: async () => {} }
  const scratch = await scratchPostgres('wp_proc')
  return { kind: 'postgres', env: { DATABASE_URL: scratch.url, ...SECRETS }, drop: scratch.drop }
}

/** The body with the values of record ids and timestamps (`_id`, `createdAt`, ...) blanked. */
export function withoutGenerated(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutGenerated)
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [
        k,
        k === '_id' || k.endsWith('At') ? '<generated>' : withoutGenerated(x),
      ]),
    )
  return v
}

export const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any })

export function call(base: string, method: string, path: string, body?: unknown, token?: string) {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then(json)
}

/** Signs up through the API, reading the mailed code where a local user reads it: the log. */
export async function signUp(r: Running): Promise<{ email: string; token: string }> {
  const email = uniqueEmail('proc')
  const reg = await call(r.baseUrl, 'POST', '/v1/auth/create-account', {
    firstName: 'Proc',
    lastName: 'Ess',
    email,
    password: PASSWORD,
    confirmPassword: PASSWORD,
  })
  expect(reg.status).toBe(202)
  const code = await until('the mailed code in the log', async () =>
    r.lines
      .filter((l) => l.includes(email))
      .map((l) => /\b(\d{6})\b/.exec(JSON.parse(l).msg ?? '')?.[1])
      .find(Boolean),
  )
  const verified = await call(r.baseUrl, 'POST', '/v1/auth/account/verify', {
    token: code,
    tempToken: reg.body.data.tempToken.token,
  })
  expect(verified.status).toBe(200)
  return { email, token: verified.body.data.token }
}

/** A JSON-RPC call to the dev chain's loopback endpoint. */
export async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result?: unknown; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}
