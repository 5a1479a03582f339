// Running a built or source entry point as a child process for the operations tests: any command,
// resolved once it logs the address it listens on (the API's port, or the worker's ops port) and
// the end of its start-up.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

export interface Child {
  child: ChildProcess
  baseUrl: string
  port: number
  /** stdout lines (pino JSON) and stderr chunks */
  lines: string[]
  /** the node process serving (the child itself, or the one `npm start` runs) */
  pid: number
}

/** Fastify's line once the server listens; its first group is the base URL. */
export const LISTENING = /Server listening at (http:\/\/127\.0\.0\.1:(\d+))/
/** The service's own last line of start-up (after the server listens, or the worker's jobs start). */
export const STARTED = /"msg":"started"/

/**
 * Spawns `command <args>` with `env` over the test's environment and resolves once a line has
 * matched `listening` (its first group is the base URL) and a line (the same or a later one) has
 * matched `started`: what a test reads of the start-up log is all there by then. `pid` is the
 * one the log names (the node process serving, also under `npm start`), else the child's.
 */
export function spawnLogged(
  command: string,
  args: string[],
  env: Record<string, string>,
  patterns: { listening?: RegExp; started?: RegExp } = {},
): Promise<Child> {
  const { listening = LISTENING, started = STARTED } = patterns
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', NODE_ENV: 'development', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const lines: string[] = []
    let buf = ''
    let url: URL | undefined
    let pid = 0
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`service did not start:\n${lines.join('\n')}`))
    }, 120_000)
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString()
      let i = buf.indexOf('\n')
      while (i >= 0) {
        const line = buf.slice(0, i)
        buf = buf.slice(i + 1)
        lines.push(line)
        pid ||= Number(/"pid":(\d+)/.exec(line)?.[1] ?? 0)
        const m = listening.exec(line)
        if (m) url = new URL(m[1]!)
        if (url && started.test(line)) {
          clearTimeout(timer)
          resolve({ child, baseUrl: url.origin, port: Number(url.port), lines, pid: pid || child.pid! })
        }
        i = buf.indexOf('\n')
      }
    })
    child.stderr!.on('data', (d: Buffer) => lines.push(d.toString()))
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`service exited with ${code}:\n${lines.join('\n')}`))
    })
  })
}

/** `spawnLogged` of `node <args>`. */
export function spawnService(
  args: string[],
  env: Record<string, string>,
  patterns: { listening?: RegExp; started?: RegExp } = {},
): Promise<Child> {
  return spawnLogged(process.execPath, args, env, patterns)
}

/** Sends SIGTERM and resolves with the exit code. */
export function stopService(c: Child): Promise<number | null> {
  if (c.child.exitCode !== null || c.child.signalCode !== null) return Promise.resolve(c.child.exitCode)
  return new Promise((resolve) => {
    c.child.removeAllListeners('exit')
    c.child.on('exit', (code) => resolve(code))
    c.child.kill('SIGTERM')
  })
}

export const run = promisify(execFile)

/** Temporary directories removed by `cleanup()`. */
export function tempDirs() {
  const dirs: string[] = []
  return {
    make(prefix = 'wp-ops-') {
      const d = mkdtempSync(join(tmpdir(), prefix))
      dirs.push(d)
      return d
    },
    cleanup() {
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
    },
  }
}

export async function getJson(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init)
  const text = await res.text()
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    body = text
  }
  return { status: res.status, headers: res.headers, body }
}
