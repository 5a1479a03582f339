// The real entry point as a user runs it (`npm start` = src/main.ts): embedded defaults, data
// that survives a restart, graceful shutdown on SIGTERM, and refusal of a bad configuration.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { PASSWORD, uniqueEmail } from '../helpers/factories.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'wp-main-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

interface Running {
  child: ChildProcess
  baseUrl: string
  lines: string[]
}

function start(env: Record<string, string> = {}): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: '0',
        LOG_LEVEL: 'info',
        NODE_ENV: 'development',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const lines: string[] = []
    let buf = ''
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${lines.join('\n')}`)), 90_000)
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString()
      let i = buf.indexOf('\n')
      while (i >= 0) {
        const line = buf.slice(0, i)
        buf = buf.slice(i + 1)
        lines.push(line)
        const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)
        if (m) {
          clearTimeout(timer)
          resolve({ child, baseUrl: m[1]!, lines })
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

function stop(r: Running): Promise<number | null> {
  return new Promise((resolve) => {
    r.child.removeAllListeners('exit')
    r.child.on('exit', (code) => resolve(code))
    r.child.kill('SIGTERM')
  })
}

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any })
const post = (base: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(json)

describe('the service process', () => {
  it('starts on embedded defaults, keeps its data across a restart, and shuts down cleanly', {
    timeout: 240_000,
  }, async () => {
    const first = await start()
    const ready = await fetch(`${first.baseUrl}/ready`).then(json)
    expect(ready.status).toBe(200)
    expect(ready.body.data.database).toBe('pglite')

    const email = uniqueEmail('proc')
    const reg = await post(first.baseUrl, '/v1/auth/create-account', {
      firstName: 'Proc',
      lastName: 'Ess',
      email,
      password: PASSWORD,
      confirmPassword: PASSWORD,
    })
    expect(reg.status).toBe(202)
    // the outbox mail is printed to the log, where a local user reads the code
    let code: string | undefined
    for (let i = 0; i < 100 && !code; i++) {
      code = first.lines
        .filter((l) => l.includes(email))
        .map((l) => /\b(\d{6})\b/.exec(JSON.parse(l).msg ?? '')?.[1])
        .find(Boolean)
      if (!code) await new Promise((r) => setTimeout(r, 100))
    }
    expect(code).toMatch(/^\d{6}$/)
    const verified = await post(first.baseUrl, '/v1/auth/account/verify', {
      token: code,
      tempToken: reg.body.data.tempToken.token,
    })
    expect(verified.status).toBe(200)
    const token = verified.body.data.token
    expect(await stop(first)).toBe(0)
    expect(first.lines.some((l) => l.includes('shutting down'))).toBe(true)

    // same data directory: the account, its session and the generated secrets are still there
    const second = await start()
    const me = await fetch(`${second.baseUrl}/v1/account`, {
      headers: { authorization: `Bearer ${token}` },
    }).then(json)
    expect(me.status).toBe(200)
    expect(me.body.data.email).toBe(email)
    const login = await post(second.baseUrl, '/v1/auth/login', { email, password: PASSWORD })
    expect(login.status).toBe(200)
    expect(await stop(second)).toBe(0)
    // no secret in the log: passwords and tokens never appear
    for (const line of [...first.lines, ...second.lines]) {
      expect(line).not.toContain(PASSWORD)
      expect(line).not.toContain(token)
    }
  })

  it('refuses a bad configuration with every problem listed', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: 'x', UPLOAD_MAX_BYTES: '-5' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let err = ''
    child.stderr!.on('data', (d) => {
      err += d
    })
    const code = await new Promise((resolve) => child.on('exit', resolve))
    expect(code).toBe(2)
    expect(err).toContain('PORT')
    expect(err).toContain('UPLOAD_MAX_BYTES')
  })
})
